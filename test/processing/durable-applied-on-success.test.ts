// Issue 36 §1, durable mode on the memory book: `processing.runQueued` (the worker's side) applies the payment when
// the job's handlers succeed. A failed attempt leaves the book as it was, so the queue's retry runs it; once it
// succeeded, the same job again (a replayed dead letter, a stalled job) and the sender's redelivery run nothing.
import { describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, memoryPaymentBook, type QueuedEvent } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_durable_applied';

describe('durable mode with a memory book: applied when the worker’s job succeeds', () => {
  it('a handler that throws once: the failed attempt applies nothing, the retry applies it once, then duplicate', async () => {
    const jobs: QueuedEvent[] = [];
    const receiver = createReceiver({ secret, mode: 'durable', queue: { enqueue: async (job) => void jobs.push(job) } });
    const book = memoryPaymentBook();
    const counts = { calls: 0, ok: 0 };
    const worker = createProcessing({ book }).on('transaction_paid', () => {
      counts.calls += 1;
      if (counts.calls === 1) throw new Error('the ledger is down');
      counts.ok += 1;
    });
    await book.expect({ id: 'txn_once', amountInCents: 2590 });
    const body = bytesOf(buildPayload('transaction_paid', { id: 'txn_once', amountInCents: 2590 }));
    const request = { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
    expect((await receiver.receive(request)).status).toBe(200);
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;

    // Attempt 1 fails: the queue is told (a rejection) and the book is as it was.
    await expect(worker.runQueued(job, { attempt: 1, final: false })).rejects.toThrow('the ledger is down');
    expect(counts).toEqual({ calls: 1, ok: 0 });
    const failed = await book.get('txn_once');
    expect(failed?.status).toBe('pending');
    expect(failed?.timeline.filter((entry) => entry.outcome === 'apply')).toEqual([]);

    // The queue's retry runs the handler and applies the payment, once.
    await worker.runQueued(job, { attempt: 2, final: false });
    expect(counts).toEqual({ calls: 2, ok: 1 });
    const applied = await book.get('txn_once');
    expect(applied?.status).toBe('paid');
    expect(applied?.timeline.map((entry) => entry.outcome)).toEqual(['apply']);

    // The same job again, and the sender's redelivery: nothing runs twice.
    await worker.runQueued(job, { attempt: 1, final: false });
    const again = await receiver.receive(request);
    expect([again.status, again.reason]).toEqual([200, 'duplicate']);
    expect(jobs).toHaveLength(1);
    expect(counts).toEqual({ calls: 2, ok: 1 });
    expect(worker.metrics()).toMatchObject({ handled: 1, failed: 1 });
  });
});
