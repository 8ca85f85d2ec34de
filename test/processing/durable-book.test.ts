// Issue 36: in durable mode the receiver only claims and queues; the worker runs each job through the stages of an
// inline delivery (order, the book's judgement, the handlers, the commit).
import { describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, memoryPaymentBook, type QueuedEvent, type Violation } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_durable_book';

function setup() {
  const jobs: QueuedEvent[] = [];
  const receiverBook = memoryPaymentBook();
  const receiver = createReceiver({
    secret,
    mode: 'durable',
    book: receiverBook,
    queue: { enqueue: async (job) => void jobs.push(job) },
  });
  const book = memoryPaymentBook();
  const ran: string[] = [];
  const told: string[] = [];
  const worker = createProcessing({ book })
    .on('transaction_paid', (event) => void ran.push(`${event.transaction.id}:${event.transaction.amountInCents}`))
    .onViolation((violation: Violation, event) => void told.push(`${violation.reason}/${violation.action}/${event.name}`));
  const deliver = async (id: string, amountInCents: number) => {
    const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents }));
    return receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
  };
  return { jobs, receiverBook, book, ran, told, worker, deliver };
}

describe('durable mode with a payment book', () => {
  it('the receiver only claims and queues: its book is not read at intake', async () => {
    const { jobs, receiverBook, deliver } = setup();
    await receiverBook.expect({ id: 'txn_intake', amountInCents: 2590 });
    const answer = await deliver('txn_intake', 100);
    expect([answer.status, answer.reason]).toEqual([200, undefined]);
    expect(jobs.map((job) => job.name)).toEqual(['transaction_paid']);
    expect(await receiverBook.held()).toEqual([]);
    expect((await receiverBook.get('txn_intake'))?.timeline ?? []).toEqual([]);
  });

  it('the worker judges each job in its book: a wrong amount is held and never runs, a right one runs once', async () => {
    const { jobs, book, ran, told, worker, deliver } = setup();
    await book.expect({ id: 'txn_wrong', amountInCents: 2590 });
    await book.expect({ id: 'txn_right', amountInCents: 2590 });
    await deliver('txn_wrong', 100);
    await deliver('txn_right', 2590);
    for (const job of jobs) await worker.runQueued(job, { attempt: 1, final: false });
    expect(ran).toEqual(['txn_right:2590']);
    expect((await book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
      ['txn_wrong', ['amount_mismatch']],
    ]);
    expect(told).toEqual(['amount_mismatch/hold/transaction_paid']);
    // The same job again (a dead letter replayed, a stalled job): the book answers it, nothing runs twice.
    for (const job of jobs) await worker.runQueued(job, { attempt: 1, final: false });
    expect(ran).toEqual(['txn_right:2590']);
    expect(worker.metrics()).toMatchObject({ handled: 1 });
  });
});
