import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventKey, normalizeEvent, type HandlerContext, type PixEventOf } from '../../src/index.js';
import {
  inboxSchemaSql,
  postgresInbox,
  transactionalOutcome,
  type PostgresInbox,
  type TransactionalContext,
} from '../../src/postgres/index.js';
import { transactionPaid } from '../../src/testing/index.js';
import { freshTable, usePostgres } from './use-postgres.js';
import { handlerContext } from '../helpers/handler-context.js';

const db = usePostgres();
type Paid = PixEventOf<'transaction_paid'>;

async function setup(options: { isolation?: 'read committed' | 'serializable' } = {}) {
  const table = freshTable();
  const ledger = freshTable('ledger');
  const inbox = postgresInbox({ pool: db().pool, table, ...options });
  await inbox.migrate();
  await db().pool.query(`CREATE TABLE ${ledger} (event_key text NOT NULL, tx_id text NOT NULL, amount integer NOT NULL)`);
  const rows = async () =>
    (await db().pool.query(`SELECT event_key FROM ${ledger} ORDER BY event_key`)).rows.map((r: { event_key: string }) => r.event_key);
  const book = (event: Paid, { key, tx }: TransactionalContext) =>
    tx.query(`INSERT INTO ${ledger} (event_key, tx_id, amount) VALUES ($1, $2, $3)`, [
      key,
      event.transaction.id,
      event.transaction.amountInCents,
    ]);
  return { inbox, table, ledger, rows, book };
}

/** Runs a wrapped handler and reads what it did from its context. */
async function outcome<E>(handler: (event: E, context: HandlerContext) => Promise<void>, event: E, ctx: HandlerContext) {
  await handler(event, ctx);
  return transactionalOutcome(ctx);
}

const context = handlerContext;

/**
 * A handler that books, and on its first attempt then holds its transaction (and its key row) open
 * until `release()`, or `release(error)` to make it fail. `firstInside` resolves once it holds.
 */
function holdingFirstAttempt(book: (event: Paid, ctx: TransactionalContext) => Promise<unknown>) {
  let entered!: () => void;
  const firstInside = new Promise<void>((r) => (entered = r));
  let release!: (error?: Error) => void;
  const gate = new Promise<void>((resolve, reject) => (release = (error) => (error ? reject(error) : resolve())));
  const attempts: number[] = [];
  const handler = async (event: Paid, ctx: TransactionalContext) => {
    attempts.push(ctx.attempt);
    await book(event, ctx);
    if (ctx.attempt === 1) {
      entered();
      await gate;
    }
  };
  return { handler, firstInside, release, attempts };
}

/** Resolves once some transaction on the server waits on a lock: the concurrent duplicate is blocked, not merely late. */
async function untilATransactionWaitsOnALock(): Promise<void> {
  for (let polls = 0; polls < 1_000; polls++) {
    const { rows } = await db().pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`);
    if ((rows[0] as { n: number }).n > 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the second transaction never waited on the first one’s key row');
}

function paid(id: string): Paid {
  const read = normalizeEvent(transactionPaid({ id, amountInCents: 1234, seed: 7 }));
  if (!read.ok || read.event.kind === 'unknown') throw new Error('fixture did not normalize');
  return read.event as Paid;
}

describe('transactional(handler): the handler’s writes and the key commit together', () => {
  it('runs once, then skips the same key (resolving "skipped")', async () => {
    const { inbox, rows, book } = await setup();
    const skipped: string[] = [];
    const handler = inbox.transactional(book, { onSkipped: (_e, c) => skipped.push(c.key!) });
    expect(await outcome(handler, paid('tx_1'), context('k1'))).toBe('handled');
    expect(await outcome(handler, paid('tx_1'), context('k1'))).toBe('skipped');
    expect(await rows()).toEqual(['k1']);
    expect(skipped).toEqual(['k1']);
  });

  it('keys with quotes and backslashes are claimed as they are (BEGIN and the claim share one round trip)', async () => {
    const { inbox, rows, book, table } = await setup();
    const handler = inbox.transactional(book);
    const odd = 'transaction_paid:it\'s\\a "key"; DROP TABLE x; --:paid';
    expect(await outcome(handler, paid('tx_odd'), context(odd))).toBe('handled');
    expect(await outcome(handler, paid('tx_odd'), context(odd))).toBe('skipped');
    expect(await rows()).toEqual([odd]);
    expect((await db().pool.query(`SELECT key FROM ${table}`)).rows).toEqual([{ key: odd }]);
  });

  it('a handler that throws rolls back its writes and the mark: the retry runs it again', async () => {
    const { inbox, rows, book, table } = await setup();
    let fail = true;
    const handler = inbox.transactional<Paid>(async (event, ctx) => {
      await book(event, ctx);
      if (fail) throw new Error('boom after the insert');
    });
    await expect(handler(paid('tx_2'), context('k2'))).rejects.toThrow('boom after the insert');
    expect(await rows()).toEqual([]);
    expect((await db().pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(0);
    fail = false;
    expect(await outcome(handler, paid('tx_2'), context('k2'))).toBe('handled');
    expect(await rows()).toEqual(['k2']);
  });

  it('concurrent duplicates serialize on the key row: the second waits, then is skipped', async () => {
    const { inbox, rows, book } = await setup();
    const held = holdingFirstAttempt(book);
    const handler = inbox.transactional<Paid>(held.handler);
    const first = outcome(handler, paid('tx_3'), context('k3', { attempt: 1 }));
    await held.firstInside;
    let secondSettled = false;
    const second = outcome(handler, paid('tx_3'), context('k3', { attempt: 2 })).finally(() => (secondSettled = true));
    await untilATransactionWaitsOnALock();
    expect(secondSettled).toBe(false); // blocked on the first transaction's uncommitted key row
    held.release();
    expect(await first).toBe('handled');
    expect(await second).toBe('skipped');
    expect(held.attempts).toEqual([1]);
    expect(await rows()).toEqual(['k3']);
  });

  it('when the first of two concurrent duplicates rolls back, the waiting one runs', async () => {
    const { inbox, rows, book } = await setup();
    const held = holdingFirstAttempt(book);
    const handler = inbox.transactional<Paid>(held.handler);
    const first = outcome(handler, paid('tx_4'), context('k4', { attempt: 1 }));
    await held.firstInside;
    const second = outcome(handler, paid('tx_4'), context('k4', { attempt: 2 }));
    await untilATransactionWaitsOnALock();
    held.release(new Error('first fails'));
    await expect(first).rejects.toThrow('first fails');
    expect(await second).toBe('handled');
    expect(await rows()).toEqual(['k4']);
  });

  it('under serializable, a concurrent duplicate hits 40001 and the bounded retry sees the key done', async () => {
    const { inbox, rows, book } = await setup({ isolation: 'serializable' });
    const held = holdingFirstAttempt(book);
    const handler = inbox.transactional<Paid>(held.handler);
    const first = outcome(handler, paid('tx_5'), context('k5', { attempt: 1 }));
    await held.firstInside;
    // The second transaction takes its snapshot now, before the first commits.
    const second = outcome(handler, paid('tx_5'), context('k5', { attempt: 2 }));
    await untilATransactionWaitsOnALock();
    held.release();
    expect(await first).toBe('handled');
    expect(await second).toBe('skipped');
    expect(await rows()).toEqual(['k5']);
  });

  it('gives up after retry.attempts runs on serialization failures, with the SQLSTATE on the error', async () => {
    const { inbox } = await setup();
    let runs = 0;
    const handler = inbox.transactional<Paid>(
      async () => {
        runs++;
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      },
      { retry: { attempts: 3, backoff: { delayMs: 1 } } },
    );
    await expect(handler(paid('tx_6'), context('k6'))).rejects.toMatchObject({ code: '40001' });
    expect(runs).toBe(3);
    expect(() => inbox.transactional<Paid>(async () => {}, { maxRetries: 2 } as never)).toThrow(
      'pixhook: `maxRetries` was renamed: use `retry: { attempts }` (attempts = maxRetries + 1)',
    );
  });

  it('rolls back instead of committing when the run was abandoned (time limit or claim lost)', async () => {
    const { inbox, rows, book } = await setup();
    const controller = new AbortController();
    const handler = inbox.transactional<Paid>(async (event, ctx) => {
      await book(event, ctx);
      controller.abort(new Error('handler_timeout'));
    });
    await expect(handler(paid('tx_7'), context('k7', { signal: controller.signal }))).rejects.toThrow('handler_timeout');
    expect(await rows()).toEqual([]);
  });

  it('separate scopes let two transactional handlers of one event each run once', async () => {
    const { inbox, rows, book, ledger } = await setup();
    const fees = inbox.transactional<Paid>(
      async (_e, { key, tx }) => {
        await tx.query(`INSERT INTO ${ledger} (event_key, tx_id, amount) VALUES ($1, 'fee', 1)`, [`${key}#fee`]);
      },
      { scope: 'fees' },
    );
    const main = inbox.transactional(book);
    expect(await outcome(main, paid('tx_8'), context('k8'))).toBe('handled');
    expect(await outcome(fees, paid('tx_8'), context('k8'))).toBe('handled');
    expect(await outcome(fees, paid('tx_8'), context('k8'))).toBe('skipped');
    expect(await rows()).toEqual(['k8', 'k8#fee']);
  });

  it('inbox.claim(tx, event) inside a transaction the merchant runs', async () => {
    const { inbox, rows, ledger } = await setup();
    const event = paid('tx_9');
    async function merchantCode(): Promise<string> {
      const client = await db().pool.connect();
      try {
        await client.query('BEGIN');
        if ((await inbox.claim(client, event)) === 'done') {
          await client.query('ROLLBACK');
          return 'done';
        }
        await client.query(`INSERT INTO ${ledger} (event_key, tx_id, amount) VALUES ($1, $2, $3)`, ['mine', event.transaction.id, 1]);
        await client.query('COMMIT');
        return 'claimed';
      } finally {
        client.release();
      }
    }
    expect(await merchantCode()).toBe('claimed');
    expect(await merchantCode()).toBe('done');
    expect(await rows()).toEqual(['mine']);
    // Without a key, claim() uses processing's default dedupe key: a handler given that key is skipped.
    const handler = inbox.transactional(async () => {
      throw new Error('must not run');
    });
    expect(await outcome(handler, event, context(eventKey(event)))).toBe('skipped');
  });

  it('works on a single pg Client too (transactions take turns)', async () => {
    const { table, ledger, rows } = await setup();
    const client = new pg.Client({ connectionString: db().server.url });
    await client.connect();
    const inbox = postgresInbox({ pool: client, table });
    const handler = inbox.transactional<Paid>(async (event, { key, tx }) => {
      await tx.query(`INSERT INTO ${ledger} (event_key, tx_id, amount) VALUES ($1, $2, $3)`, [key, event.transaction.id, 1]);
    });
    const results = await Promise.all(['a', 'b', 'a', 'c', 'b'].map((k) => outcome(handler, paid(`tx_${k}`), context(`c-${k}`))));
    expect(results.filter((r) => r === 'handled')).toHaveLength(3);
    expect(await rows()).toEqual(['c-a', 'c-b', 'c-c']);
    expect(await inbox.store.claim('c-x', 'o', 60_000)).toBe('claimed');
    await inbox.close();
    await client.end();
  });
});

describe('migrate, schema, sweep', () => {
  it('migrate is idempotent and safe from several instances at once; the schema option creates the schema', async () => {
    const inboxes: PostgresInbox[] = Array.from({ length: 4 }, () =>
      postgresInbox({ pool: db().pool, schema: 'payments', table: 'inbox' }),
    );
    await Promise.all(inboxes.map((i) => i.migrate()));
    await inboxes[0]!.migrate();
    const { rows } = await db().pool.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'payments' AND table_name = 'inbox' ORDER BY ordinal_position`,
    );
    expect(rows.map((r: { column_name: string }) => r.column_name)).toEqual(['scope', 'key', 'done_at', 'expires_at']);
    expect(inboxes[0]!.schemaSql()).toBe(inboxSchemaSql({ schema: 'payments', table: 'inbox' }));
    expect(inboxSchemaSql()).toContain('CREATE TABLE IF NOT EXISTS "pixhook_inbox"');
  });

  it('refuses table and schema names that are not plain identifiers', () => {
    expect(() => postgresInbox({ pool: db().pool, table: 'x; DROP TABLE y' })).toThrow(/plain identifier/);
    expect(() => inboxSchemaSql({ schema: 'a"b' })).toThrow(/plain identifier/);
    expect(() => postgresInbox({ pool: db().pool, isolation: 'read uncommitted; DROP TABLE x' as never })).toThrow(
      /`isolation` must be "read committed", "repeatable read" or "serializable"/,
    );
    expect(() => postgresInbox({ pool: db().pool }).transactional(async () => {}, { isolation: 'snapshot' as never })).toThrow(
      /`isolation` must be "read committed", "repeatable read" or "serializable"/,
    );
  });

  it('sweep deletes only keys older than olderThanMs, in batches', async () => {
    const { inbox, table } = await setup();
    const handler = inbox.transactional(async () => {});
    for (let i = 0; i < 7; i++) await handler(paid(`tx_s${i}`), context(`old-${i}`));
    await db().pool.query(`UPDATE ${table} SET done_at = now() - interval '2 days'`);
    await handler(paid('tx_new'), context('new'));
    expect(await inbox.sweep({ olderThanMs: 24 * 60 * 60 * 1000, batchSize: 3 })).toBe(7);
    expect((await db().pool.query(`SELECT key FROM ${table}`)).rows).toEqual([{ key: 'new' }]);
    expect(await inbox.sweep()).toBe(0);
  });
});
