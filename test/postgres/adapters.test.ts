import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { normalizeEvent, type HandlerContext, type PixEventOf } from '../../src/index.js';
import {
  fromDrizzle,
  fromKysely,
  fromPostgresJs,
  postgresInbox,
  transactionalOutcome,
  type SqlDatabase,
} from '../../src/postgres/index.js';
import { transactionPaid } from '../../src/testing/index.js';
import { freshTable, usePostgres } from './use-postgres.js';
import { handlerContext } from '../helpers/handler-context.js';

const db = usePostgres();
type Paid = PixEventOf<'transaction_paid'>;
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  // Inboxes were registered after their pools: reversed, they close first, handing back the lock connections a
  // pool's end() waits for (a test that failed before its own close() would otherwise hang the hook). Each close
  // is bounded, and one that does not finish fails the file instead of hanging it.
  const stuck: number[] = [];
  for (const [i, close] of closers.reverse().entries()) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 5_000)));
    if ((await Promise.race([close().catch(() => {}), late])) === 'late') stuck.push(i);
    clearTimeout(timer);
  }
  expect(stuck).toEqual([]);
}, 30_000);
/** An inbox closed after the file even if its test failed first; close() again is harmless. */
function closing<T extends { close(): Promise<void> }>(inbox: T): T {
  closers.push(() => inbox.close());
  return inbox;
}

function paid(id: string): Paid {
  const read = normalizeEvent(transactionPaid({ id, seed: 3 }));
  if (!read.ok || read.event.kind === 'unknown') throw new Error('fixture did not normalize');
  return read.event as Paid;
}
const context = (key: string): HandlerContext => handlerContext(key);

/** As a merchant's pool should be: an idle client whose server goes away must not crash the process. */
function quiet(pool: pg.Pool): pg.Pool {
  pool.on('error', () => {});
  return pool;
}

const adapters: [string, () => SqlDatabase][] = [
  [
    'postgres.js',
    () => {
      const sql = postgres(db().server.url, { max: 5, onnotice: () => {} });
      closers.push(() => sql.end({ timeout: 1 }));
      return fromPostgresJs(sql);
    },
  ],
  [
    'Kysely 0.28 (pg dialect)',
    () => {
      const pool = quiet(new pg.Pool({ connectionString: db().server.url, max: 5 }));
      const kysely = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
      closers.push(() => kysely.destroy());
      return fromKysely(kysely, pool);
    },
  ],
  [
    'Drizzle (node-postgres)',
    () => {
      const pool = quiet(new pg.Pool({ connectionString: db().server.url, max: 5 }));
      closers.push(() => pool.end());
      return fromDrizzle(drizzlePg(pool));
    },
  ],
  [
    'Drizzle (postgres.js)',
    () => {
      const sql = postgres(db().server.url, { max: 5, onnotice: () => {} });
      closers.push(() => sql.end({ timeout: 1 }));
      return fromDrizzle(drizzlePostgresJs(sql));
    },
  ],
];

describe.each(adapters)('%s against the real server', (_name, make) => {
  it('transactional: commits with the key, rolls back on a throw, skips a done key, serializes duplicates', async () => {
    const handle = make();
    const table = freshTable();
    const ledger = freshTable('ledger');
    const inbox = closing(postgresInbox({ pool: handle, table }));
    await inbox.migrate();
    await handle.query(`CREATE TABLE ${ledger} (event_key text NOT NULL, n integer NOT NULL)`);
    let fail = true;
    const handler = inbox.transactional<Paid>(async (_event, { key, tx }) => {
      await tx.query(`INSERT INTO ${ledger} (event_key, n) VALUES ($1, $2)`, [key, 1]);
      if (fail) throw new Error('rolled back');
    });
    await expect(handler(paid('tx_a'), context('a'))).rejects.toThrow('rolled back');
    expect((await handle.query(`SELECT count(*)::int AS n FROM ${ledger}`)).rows[0]!['n']).toBe(0);
    fail = false;
    const contexts = Array.from({ length: 6 }, () => context('a'));
    await Promise.all(contexts.map((c) => handler(paid('tx_a'), c)));
    expect(contexts.map((c) => transactionalOutcome(c)).sort()).toEqual(['handled', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect((await handle.query(`SELECT event_key, n FROM ${ledger}`)).rows).toEqual([{ event_key: 'a', n: 1 }]);
    // claim() inside the adapter's own transaction handle.
    expect(await handle.transaction('read committed', (tx) => inbox.claim(tx, 'a'))).toBe('done');
    expect(await handle.transaction('read committed', (tx) => inbox.claim(tx, 'b'))).toBe('claimed');
    await inbox.close();
  });

  it('store: one claim wins, done after complete, a lost lock connection frees the claims', async () => {
    const handle = make();
    const table = freshTable();
    const a = closing(postgresInbox({ pool: handle, table }));
    await a.migrate();
    const b = closing(postgresInbox({ pool: handle, table }));
    // Either may win the race: the winner is read from the unsorted answers (sort() reorders in place).
    const [ofA, ofB] = await Promise.all([a.store.claim('k', 'a', 60_000), b.store.claim('k', 'b', 60_000)]);
    expect([ofA, ofB].sort()).toEqual(['claimed', 'in_flight']);
    const [winner, loser, owner] = ofA === 'claimed' ? [a, b, 'a'] : [b, a, 'b'];
    expect(await winner.store.extend('k', owner, 60_000)).toBe(true);
    // The lock connection is cut off (as when its process dies): the claim is free for the other instance.
    // Only the backend holding this test's lock on 'k' (a bigint advisory lock: classid, objid = its two halves).
    const { rows: cut } = await db().pool.query(
      `WITH h AS (SELECT hashtextextended($1, 0) AS v)
       SELECT pg_terminate_backend(l.pid) AS terminated FROM pg_locks l, h
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.classid::text::bigint = (h.v >> 32) & 4294967295 AND l.objid::text::bigint = h.v & 4294967295`,
      [`pixhook:.${table}:k`],
    );
    expect(cut).toEqual([{ terminated: true }]);
    let got = await loser.store.claim('k', 'c', 60_000);
    for (let i = 0; got !== 'claimed' && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      got = await loser.store.claim('k', 'c', 60_000);
    }
    expect(got).toBe('claimed');
    // extend proves the lock connection with one round trip at most every ttl/4: a short TTL checks now.
    await new Promise((r) => setTimeout(r, 20));
    expect(await winner.store.extend('k', owner, 40)).toBe(false);
    expect(await loser.store.complete('k', 'c', 60_000)).toBe(true);
    expect(await winner.store.claim('k', 'd', 60_000)).toBe('done');
    // Concurrent retries of the finished key, on both instances at once: all done, none in_flight (issue 20).
    const retries = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).store.claim('k', `r${i}`, 60_000)));
    expect(retries).toEqual(Array.from({ length: 40 }, () => 'done'));
    await a.close();
    await b.close();
  });
});
