// Issue 36 §1 on the Postgres inbox: the merchant's writes, the book's, the handler's claim and the done mark commit
// in one transaction. When that COMMIT fails after the handler succeeded, nothing was applied, so the run must not
// count as applied: inline answers 503 `store_unavailable` (the retry runs the handler), background retries it.
// The fault is deterministic: a deferred constraint trigger on the merchant's table refuses a row marked `poison`
// at COMMIT, after the handler returned. On the code before, the first answer was 200 and the payment was lost.
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, type PixEvent, type QueuedEvent } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox, type TransactionalContext } from '../../src/postgres/index.js';
import { freshCharge, paidDelivery, secret } from '../book/applied-on-success-scenarios.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
const inboxes: PostgresInbox[] = [];
afterAll(() => Promise.all(inboxes.map((inbox) => inbox.close())));

/** The inbox, the book, and a merchant's ledger whose rows marked `poison` fail the COMMIT (a deferred trigger). */
async function setup() {
  const { pool } = db();
  const inbox = postgresInbox({ pool, table: freshTable() });
  inboxes.push(inbox);
  await inbox.migrate();
  const book = postgresPaymentBook({ db: pool, inbox, table: freshTable('book') });
  await book.migrate();
  const ledger = freshTable('ledger');
  await pool.query(`CREATE TABLE ${ledger} (charge text NOT NULL, poison boolean NOT NULL)`);
  await pool.query(`CREATE FUNCTION ${ledger}_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.poison THEN RAISE EXCEPTION 'the ledger refuses this row at commit' USING ERRCODE = '23514'; END IF; RETURN NULL; END $$`);
  await pool.query(`CREATE CONSTRAINT TRIGGER ${ledger}_at_commit AFTER INSERT ON ${ledger}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${ledger}_check()`);
  const rows = async (id: string) =>
    (await pool.query<{ poison: boolean }>(`SELECT poison FROM ${ledger} WHERE charge = $1`, [id])).rows.map((row) => row.poison);
  return { inbox, book, ledger, rows };
}

/** A transactional handler writing the ledger row; its first `poisoned` runs write a row the COMMIT refuses. */
function ledgerHandler(inbox: PostgresInbox, ledger: string, poisoned: number) {
  const counts = { calls: 0, returned: 0 };
  const handler = inbox.transactional(async (event: PixEvent, context: TransactionalContext) => {
    counts.calls += 1;
    const id = event.kind === 'transaction' ? event.transaction.id : '';
    await context.tx.query(`INSERT INTO ${ledger} (charge, poison) VALUES ($1, $2)`, [id, counts.calls <= poisoned]);
    // The handler succeeded: whatever fails after this is the COMMIT.
    counts.returned += 1;
  });
  return { counts, handler };
}

const logged = () => {
  const errors: string[] = [];
  const record = (_: unknown, message?: string) => void errors.push(String(message));
  const ignore = () => {};
  return { errors, logger: { error: record, warn: ignore, info: ignore, debug: ignore } };
};

/** A background receiver on a fresh setup whose first transactional run's COMMIT fails; `failures`: what onError heard. */
async function inBackground(attempts: number) {
  const { inbox, book, ledger, rows } = await setup();
  const { counts, handler } = ledgerHandler(inbox, ledger, 1);
  const failures: { error: unknown; attempt: number }[] = [];
  const receiver = createReceiver({
    secret,
    book,
    store: inbox.store,
    mode: 'background',
    retry: { attempts, backoff: { delayMs: 1 } },
    logger: logged().logger,
  })
    .on('transaction_paid', handler)
    .onError((report) => void failures.push(report));
  return { book, rows, counts, failures, receiver };
}

describe('postgres inbox: a COMMIT that fails after the handler succeeded applies nothing', () => {
  it('inline: 503 store_unavailable, nothing written, the book unchanged; the retry runs it once (200), then duplicate', async () => {
    const { inbox, book, ledger, rows } = await setup();
    const { counts, handler } = ledgerHandler(inbox, ledger, 1);
    const { errors, logger } = logged();
    const receiver = createReceiver({ secret, book, store: inbox.store, logger }).on('transaction_paid', handler);
    const id = freshCharge('commit-fails');

    const first = await receiver.receive(paidDelivery(id));
    expect([first.status, first.reason]).toEqual([503, 'store_unavailable']);
    // The fault happened: the handler returned, and the COMMIT refused its row.
    expect(counts).toEqual({ calls: 1, returned: 1 });
    expect(errors.some((message) => message.includes('did not commit'))).toBe(true);
    expect(await rows(id)).toEqual([]);
    expect((await book.get(id))?.status ?? 'pending').toBe('pending');

    const retry = await receiver.receive(paidDelivery(id));
    expect([retry.status, retry.reason]).toEqual([200, undefined]);
    expect(counts).toEqual({ calls: 2, returned: 2 });
    expect(await rows(id)).toEqual([false]);
    expect((await book.get(id))?.status).toBe('paid');

    const again = await receiver.receive(paidDelivery(id));
    expect([again.status, again.reason]).toEqual([200, 'duplicate']);
    expect(counts.calls).toBe(2);
    expect(await rows(id)).toEqual([false]);
    await receiver.close();
  });

  it('background: the failed commit is retried like a failed handler; applied once, after the retry', async () => {
    const { book, rows, counts, failures, receiver } = await inBackground(3);
    const id = freshCharge('commit-fails-background');

    const first = await receiver.receive(paidDelivery(id));
    expect([first.status, first.reason]).toEqual([200, undefined]);
    await receiver.drain();
    expect(counts).toEqual({ calls: 2, returned: 2 });
    expect(await rows(id)).toEqual([false]);
    expect((await book.get(id))?.status).toBe('paid');
    expect(failures).toEqual([]);

    const again = await receiver.receive(paidDelivery(id));
    expect([again.status, again.reason]).toEqual([200, 'duplicate']);
    await receiver.drain();
    expect(counts.calls).toBe(2);
    await receiver.close();
  });

  it('background: the last run’s commit fails, onError is told, nothing applied; the sender’s retry runs it once', async () => {
    const { book, rows, counts, failures, receiver } = await inBackground(1);
    const id = freshCharge('commit-fails-give-up');

    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    await receiver.drain();
    expect(counts).toEqual({ calls: 1, returned: 1 });
    expect(failures.map((failure) => [(failure.error as { code?: string }).code, failure.attempt])).toEqual([['store_unavailable', 1]]);
    expect(await rows(id)).toEqual([]);
    expect((await book.get(id))?.status ?? 'pending').toBe('pending');

    const retry = await receiver.receive(paidDelivery(id));
    expect([retry.status, retry.reason]).toEqual([200, undefined]);
    await receiver.drain();
    expect(counts.calls).toBe(2);
    expect(await rows(id)).toEqual([false]);
    expect((await book.get(id))?.status).toBe('paid');
    await receiver.close();
  });

  it('background: the retry after a failed COMMIT takes the charge’s order again, never overlapping its next event', async () => {
    const { inbox, book, ledger, rows } = await setup();
    const { counts, handler } = ledgerHandler(inbox, ledger, 1);
    const { errors, logger: base } = logged();
    const warnings: string[] = [];
    const logger = { ...base, warn: (_: unknown, message?: string) => void warnings.push(String(message)) };
    let opened!: () => void;
    const gate = new Promise<void>((resolve) => (opened = resolve));
    const created = { started: 0, ended: 0, paidCallsWhileRunning: [] as number[] };
    const receiver = createReceiver({
      secret,
      book,
      store: inbox.store,
      mode: 'background',
      // A long backoff: the charge's next event takes the lease the failed COMMIT gave back long before the retry is due.
      retry: { attempts: 3, backoff: { delayMs: 3_000 } },
      logger,
    })
      .on('transaction_paid', handler)
      .on('transaction_created', async () => {
        created.started += 1;
        await gate;
        created.paidCallsWhileRunning.push(counts.calls);
        created.ended += 1;
      });
    const id = freshCharge('commit-fails-order');

    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    // The first COMMIT failed (the fault happened) and gave the charge's order lease back.
    await expect.poll(() => errors.some((message) => message.includes('did not commit')), { timeout: 10_000 }).toBe(true);
    const bytes = bytesOf(buildPayload('transaction_created', { variant: 'b', seed: 1, id, amountInCents: 1000 }));
    expect((await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(bytes, secret) }, body: bytes })).status).toBe(
      200,
    );
    await expect.poll(() => created.started, { timeout: 20_000 }).toBe(1);
    // Past the retry's backoff: the paid retry waits for the lease the created event holds (on the code before, it
    // ran beside it).
    await expect.poll(() => warnings.some((message) => message.includes('retrying')), { timeout: 20_000 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(counts.calls).toBe(1);
    opened();
    await receiver.drain();
    expect(created.paidCallsWhileRunning).toEqual([1]);
    expect(counts).toEqual({ calls: 2, returned: 2 });
    expect(await rows(id)).toEqual([false]);
    expect((await book.get(id))?.status).toBe('paid');
    await receiver.close();
  });

  it('durable: the job whose COMMIT fails rejects (the queue retries it); the retry applies it once', async () => {
    const { inbox, book, ledger, rows } = await setup();
    const { counts, handler } = ledgerHandler(inbox, ledger, 1);
    const jobs: QueuedEvent[] = [];
    const receiver = createReceiver({
      secret,
      store: inbox.store,
      mode: 'durable',
      queue: { enqueue: async (job) => void jobs.push(job) },
    });
    const worker = createProcessing({ book, store: inbox.store, logger: logged().logger }).on('transaction_paid', handler);
    const id = freshCharge('commit-fails-durable');
    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;

    await expect(worker.runQueued(job, { attempt: 1, final: false })).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(counts).toEqual({ calls: 1, returned: 1 });
    expect(await rows(id)).toEqual([]);
    expect((await book.get(id))?.status ?? 'pending').toBe('pending');

    await worker.runQueued(job, { attempt: 2, final: false });
    expect(counts).toEqual({ calls: 2, returned: 2 });
    expect(await rows(id)).toEqual([false]);
    expect((await book.get(id))?.status).toBe('paid');

    // The same job again (a stalled job, a replayed dead letter): nothing runs twice.
    await worker.runQueued(job, { attempt: 1, final: false });
    expect(counts.calls).toBe(2);
    expect(await rows(id)).toEqual([false]);
    await receiver.close();
    await worker.close();
  });
});
