// Issue 36 §1 on the Postgres inbox: with a book, the merchant's writes, the book's and the done mark commit together
// in the done mark's COMMIT. One that outlives `storeTimeoutMs` has an outcome the receiver cannot know when it must
// answer: a retryable answer is safe (the retry finds the key done, or runs it once) and a 200 is not: had that COMMIT
// failed, the 200 would have lost the payment (the sender never retries). The fault is deterministic: a deferred
// constraint trigger sleeps past the store's timeout at COMMIT, then refuses the row (`poison`) or lets it commit.
// On the code before, the first answer with the book was 200 both ways. Without a book the COMMIT is the handler's
// own (inside its run, bounded by the handler's limits): the answer waits for it, and says what it did.
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type PixEvent } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox, type TransactionalContext } from '../../src/postgres/index.js';
import { freshCharge, paidDelivery, secret } from '../book/applied-on-success-scenarios.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
const inboxes: PostgresInbox[] = [];
afterAll(() => Promise.all(inboxes.map((inbox) => inbox.close())));

const storeTimeoutMs = 100;
// Well past the store's timeout, so the answer is always given before the COMMIT ends.
const commitSleepSeconds = 1.5;

/** The inbox, maybe a book, and a ledger whose every COMMIT sleeps past the store's timeout, then refuses `poison` rows. */
async function setup(withBook: boolean, mode: 'inline' | 'background' = 'inline') {
  const { pool } = db();
  const inbox = postgresInbox({ pool, table: freshTable() });
  inboxes.push(inbox);
  await inbox.migrate();
  const book = withBook ? postgresPaymentBook({ db: pool, inbox, table: freshTable('book') }) : undefined;
  await book?.migrate();
  const ledger = freshTable('ledger');
  await pool.query(`CREATE TABLE ${ledger} (charge text NOT NULL, poison boolean NOT NULL)`);
  await pool.query(`CREATE FUNCTION ${ledger}_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(${commitSleepSeconds});
      IF NEW.poison THEN RAISE EXCEPTION 'the ledger refuses this row at commit' USING ERRCODE = '23514'; END IF;
      RETURN NULL; END $$`);
  await pool.query(`CREATE CONSTRAINT TRIGGER ${ledger}_at_commit AFTER INSERT ON ${ledger}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${ledger}_check()`);
  const rows = async (id: string) =>
    (await pool.query<{ poison: boolean }>(`SELECT poison FROM ${ledger} WHERE charge = $1`, [id])).rows.map((row) => row.poison);
  const counts = { calls: 0, returned: 0 };
  const poisoned = { first: 0 };
  const handler = inbox.transactional(async (event: PixEvent, context: TransactionalContext) => {
    counts.calls += 1;
    const id = event.kind === 'transaction' ? event.transaction.id : '';
    await context.tx.query(`INSERT INTO ${ledger} (charge, poison) VALUES ($1, $2)`, [id, counts.calls <= poisoned.first]);
    counts.returned += 1;
  });
  const errors: string[] = [];
  const record = (_: unknown, message?: string) => void errors.push(String(message));
  const logger = { error: record, warn: record, info: () => {}, debug: () => {} };
  const receiver = createReceiver({ secret, store: inbox.store, storeTimeoutMs, logger, mode, ...(book && { book }) }).on(
    'transaction_paid',
    handler,
  );
  return { book, rows, counts, poisoned, errors, receiver };
}

/** Sends the delivery as a sender retrying would, until it is answered 200; every answer, in order. */
async function retriedUntilOk(receiver: ReturnType<typeof createReceiver>, id: string) {
  const answers: string[] = [];
  for (let i = 0; i < 200; i++) {
    const result = await receiver.receive(paidDelivery(id));
    answers.push(`${result.status} ${result.reason ?? ''}`.trim());
    if (result.status === 200) return answers;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return answers;
}

describe('postgres inbox: a COMMIT slower than storeTimeoutMs is answered as not known to be applied', () => {
  for (const withBook of [false, true]) {
    const name = withBook ? 'with the book' : 'without a book';
    // With the book the answer cannot wait for the COMMIT; without one, it does (the handler's own transaction).
    const failedAnswer = withBook ? [503, 'store_unavailable'] : [500, 'handler_failed'];
    const okAnswer = withBook ? [503, 'store_unavailable'] : [200, undefined];

    it(`${name}: the COMMIT then fails — a retryable answer, and the sender's retries apply it exactly once`, async () => {
      const { book, rows, counts, poisoned, errors, receiver } = await setup(withBook);
      poisoned.first = 1;
      const id = freshCharge('slow-commit-fails');

      const first = await receiver.receive(paidDelivery(id));
      expect([first.status, first.reason]).toEqual(failedAnswer);
      // The fault happened: the handler returned before the answer, and its COMMIT failed.
      expect(counts).toEqual({ calls: 1, returned: 1 });
      if (withBook) expect(errors.some((message) => message.includes('outlived storeTimeoutMs'))).toBe(true);

      const answers = await retriedUntilOk(receiver, id);
      // Every COMMIT is slow: with the book the second run's is answered as unknown too, then found done.
      expect(answers.at(-1)).toBe(withBook ? '200 duplicate' : '200');
      expect(counts.calls).toBe(2);
      expect(await rows(id)).toEqual([false]);
      if (book) expect((await book.get(id))?.status).toBe('paid');
      expect((await receiver.receive(paidDelivery(id))).reason).toBe('duplicate');
      await receiver.close();
    });

    it(`${name}: the COMMIT then succeeds — the handler never runs twice, and the retries are answered duplicate`, async () => {
      const { book, rows, counts, receiver } = await setup(withBook);
      const id = freshCharge('slow-commit-ok');

      const first = await receiver.receive(paidDelivery(id));
      expect([first.status, first.reason]).toEqual(okAnswer);
      const answers = await retriedUntilOk(receiver, id);
      expect(answers.at(-1)).toBe('200 duplicate');
      expect(counts.calls).toBe(1);
      expect(await rows(id)).toEqual([false]);
      if (book) expect((await book.get(id))?.status).toBe('paid');
      await receiver.close();
    });
  }

  it('background, with the book: the run waits for the COMMIT’s outcome; a failed one is retried, applied once', async () => {
    const { book, rows, counts, poisoned, receiver } = await setup(true, 'background');
    poisoned.first = 1;
    const id = freshCharge('slow-commit-background');

    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    await receiver.drain();
    // The first COMMIT failed after the store's timeout; the background retry applied it (on the code before, the
    // timed-out mark counted as applied: one call, no row, the payment lost).
    expect(counts).toEqual({ calls: 2, returned: 2 });
    expect(await rows(id)).toEqual([false]);
    expect((await book!.get(id))?.status).toBe('paid');
    expect((await receiver.receive(paidDelivery(id))).reason).toBe('duplicate');
    await receiver.close();
  });
});
