// Issue 36 §5 "Fair order" on Postgres (the inbox's table): waiters for one charge are served in arrival order
// across instances, each instance on a pool of its own.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { inboxNames } from '../../src/postgres/inbox-schema.js';
import { postgresOrderLeases } from '../../src/postgres/postgres-order-leases.js';
import { freshTable, usePostgres } from '../postgres/use-postgres.js';
import { arrivalOrder, expectServedInArrivalOrder, fairSecret, fairSequencer, signed, threeStreamsAndPaid } from './fair-order-harness.js';

const db = usePostgres();
const pools: pg.Pool[] = [];
const inboxes: PostgresInbox[] = [];
afterEach(async () => {
  await Promise.all(inboxes.splice(0).map((inbox) => inbox.close()));
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

async function instances(adversary: 'fresh' | 'latest', withBook: boolean, orderWaitMs = 60_000) {
  const table = freshTable('fair_inbox');
  const bookTable = freshTable('fair_book');
  const sequencer = fairSequencer(adversary);
  const receivers: Receiver[] = [];
  for (let i = 0; i < 2; i++) {
    const pool = new pg.Pool({ connectionString: db().server.url, max: 20 });
    pools.push(pool);
    const inbox = postgresInbox({ pool, table });
    inboxes.push(inbox);
    await inbox.migrate();
    const book = withBook ? postgresPaymentBook({ db: pool, inbox, table: bookTable }) : undefined;
    if (book) await book.migrate();
    sequencer.watch(inbox.store);
    receivers.push(
      createReceiver({
        secret: fairSecret,
        store: inbox.store,
        ...(book && { book }),
        orderWaitMs,
        deadlineMs: 60_000,
        handlerTimeoutMs: 60_000,
        storeTimeoutMs: 15_000,
      }),
    );
  }
  return { receivers, sequencer, leases: postgresOrderLeases(db().pool, inboxNames({ table })), table };
}

describe('fair order on Postgres', () => {
  // Without a book this stalled one ask for storeTimeoutMs in about one run in three under load: the sequencer lost
  // the waiters parked at a gate that a second give-back replaced (fixed there; fair-order-harness.test.ts).
  it.each([false, true])(
    'three streams of signed transaction_updated and the genuine transaction_paid on two instances (book: %s): the paid waits only for the events ahead of it at arrival',
    async (withBook) => {
      const { receivers, sequencer } = await instances('fresh', withBook);
      expectServedInArrivalOrder(await threeStreamsAndPaid(receivers, sequencer, 'ch_fair'));
    },
    60_000,
  );

  it('two instances: waiters are served in the order they arrived, even when the last one asks first after the give-back', async () => {
    const { receivers, sequencer } = await instances('latest', true);
    await arrivalOrder(receivers, sequencer, 'ch_arrival');
  }, 60_000);

  it("a dead waiter's ticket stops holding up the waiters behind it once its TTL passed", async () => {
    const { receivers, leases, table } = await instances('fresh', false);
    const holder = (await leases.take('t:ch_dead', 'holder', 60_000))!;
    // A waiter queues, then its process dies: it never asks again.
    expect(await leases.take('t:ch_dead', 'dead', 60_000, { ticketTtlMs: 300 })).toBeUndefined();
    const ran: string[] = [];
    receivers[1]!.on('transaction_updated', () => void ran.push('live'));
    const live = receivers[1]!.receive(signed('transaction_updated', 'ch_dead', 'pending', 1_000));
    const tickets = async () =>
      (await db().pool.query(`SELECT key FROM ${table} WHERE scope = 'pixhook:order-wait:t:ch_dead' ORDER BY done_at`)).rows.map(
        (row: { key: string }) => row.key,
      );
    while ((await tickets()).length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await tickets())[0]).toBe('dead');
    expect(await leases.give('t:ch_dead', holder)).toBe(true);
    expect((await live).status).toBe(200);
    expect(ran).toEqual(['live']);
    expect(await tickets()).toEqual(['dead']);
  }, 60_000);

  it('a waiter past orderWaitMs answers 503 resource_busy and leaves the queue', async () => {
    const { receivers, leases, table } = await instances('fresh', false, 100);
    const holder = (await leases.take('t:ch_quit', 'holder', 60_000))!;
    const busy = await receivers[0]!.receive(signed('transaction_updated', 'ch_quit', 'pending', 1_000));
    expect(busy.status).toBe(503);
    expect(JSON.parse(busy.body)).toMatchObject({ error: 'resource_busy' });
    const { rows } = await db().pool.query(`SELECT key FROM ${table} WHERE scope = 'pixhook:order-wait:t:ch_quit'`);
    expect(rows).toEqual([]);
    expect(await leases.give('t:ch_quit', holder)).toBe(true);
    expect((await receivers[1]!.receive(signed('transaction_updated', 'ch_quit', 'pending', 1_000))).status).toBe(200);
  }, 60_000);
});
