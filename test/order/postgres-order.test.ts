import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, type AckMode, type Processing } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { postgresOrderLeases } from '../../src/postgres/postgres-order-leases.js';
import { inboxNames } from '../../src/postgres/inbox-schema.js';
import { createDurableQueue, startWorker } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { freshTable, usePostgres } from '../postgres/use-postgres.js';
import { deliverPairs, orderRecorder, orderViolations } from './order-recorder.js';

const db = usePostgres();
const pools: pg.Pool[] = [];
const inboxes: PostgresInbox[] = [];
let redis: RedisServer;
let run = 0;
// 40 claims at once on one lock connection per instance: a shared 2-core machine can take seconds.
const loadedMachine = 15_000;

beforeAll(async () => {
  redis = await startRedisServer();
});
// Each test's instances hold pooled connections: ended after it, so the server's max_connections is never reached.
afterEach(async () => {
  await Promise.all(inboxes.splice(0).map((inbox) => inbox.close()));
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});
afterAll(async () => {
  await redis.dispose();
});

/** An inbox on a pool of its own (as another instance would have), migrated with its book. */
async function instanceOn(table: string, bookTable: string, max = 30) {
  const pool = new pg.Pool({ connectionString: db().server.url, max });
  pools.push(pool);
  const inbox = postgresInbox({ pool, table });
  inboxes.push(inbox);
  const book = postgresPaymentBook({ db: pool, inbox, table: bookTable });
  await inbox.migrate();
  await book.migrate();
  return { inbox, book };
}

// Issue 28: "In durable mode on Postgres, 4–7 of 20 overlapped"; inline and background hold the book's row lock.
describe('one order of effects per charge on Postgres', () => {
  // 20 charges: each gated run keeps its book transaction (one pooled connection) open until its handlers end.
  it.each<AckMode>(['inline', 'background'])(
    'two processings, %s: 20 charges, no overlap, paid before refunded',
    async (mode) => {
      const table = freshTable('order_inbox');
      const bookTable = freshTable('order_book');
      const tag = ++run;
      const charges = Array.from({ length: 20 }, (_, i) => `ch_pg${tag}_${i}`);
      const recorder = orderRecorder(charges);
      const instances = [];
      for (const name of ['a', 'b']) {
        const { inbox, book } = await instanceOn(table, bookTable);
        recorder.watch(inbox.store);
        const processing = createProcessing({
          mode,
          store: inbox.store,
          book,
          orderWaitMs: 60_000,
          ...(mode === 'background' ? { background: { concurrency: 100 } } : { deadlineMs: 60_000 }),
        });
        recorder.register(processing, name);
        instances.push(processing);
      }
      const results = await deliverPairs(instances as [Processing, Processing], charges, recorder);
      expect(results.filter((result) => result.reason !== undefined && result.reason !== 'held')).toEqual([]);
      await Promise.all(instances.map((processing) => processing.drain({ timeoutMs: 60_000 })));
      expect(recorder.started.size).toBe(charges.length);
      expect(orderViolations(recorder.spans)).toEqual([]);
    },
    120_000,
  );

  it('durable, two receivers and two workers on the inbox: the jobs of one charge run one at a time, in the order the book applied them', async () => {
    const table = freshTable('order_inbox');
    const bookTable = freshTable('order_book');
    const tag = ++run;
    const charges = Array.from({ length: 40 }, (_, i) => `ch_pgd${tag}_${i}`);
    const recorder = orderRecorder(charges);
    const queueName = `order-pg-${run}`;
    const queue = await createDurableQueue({ connection: redis.url, queueName });
    const receivers = [];
    for (let i = 0; i < 2; i++) {
      // The receivers only claim and queue; the book judges each job on the worker that runs it.
      const { inbox } = await instanceOn(table, bookTable);
      receivers.push(createProcessing({ mode: 'durable', queue, store: inbox.store, storeTimeoutMs: loadedMachine }));
    }
    const workers = [];
    let workerBook: Awaited<ReturnType<typeof instanceOn>>['book'] | undefined;
    for (const name of ['w1', 'w2']) {
      // Every handler waits on the gate inside its book transaction (a connection each): room for all 40 charges.
      const { inbox, book } = await instanceOn(table, bookTable, 60);
      workerBook = book;
      recorder.watch(inbox.store);
      const processing = createProcessing({ store: inbox.store, orderWaitMs: 60_000, storeTimeoutMs: loadedMachine, book });
      recorder.register(processing, name);
      workers.push(await startWorker({ processing, connection: redis.url, queueName, concurrency: 100 }));
    }
    try {
      const results = await deliverPairs(receivers as [Processing, Processing], charges, recorder);
      expect(results.filter((result) => result.reason !== undefined && result.reason !== 'held')).toEqual([]);
      const queued = results.filter((result) => result.reason === undefined).length;
      const giveUpAt = Date.now() + 90_000;
      while ((await queue.counts()).completed < queued && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await queue.counts()).toMatchObject({ failed: 0, completed: queued });
      // A job the book held on the worker (a paid after its refund: stale) ran no handler.
      expect(recorder.spans.length + (await workerBook!.held()).length).toBe(queued);
      expect(orderViolations(recorder.spans)).toEqual([]);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
    }
  }, 120_000);

  it('a stale fence can neither give back nor extend the lease taken after it lapsed', async () => {
    const table = freshTable('order_inbox');
    await postgresInbox({ pool: db().pool, table }).migrate();
    const leases = postgresOrderLeases(db().pool, inboxNames({ table }));
    const stale = await leases.take('t:ch_fence', 'owner-a', 20);
    expect(stale).toMatch(/^\d+:owner-a$/);
    expect(await leases.take('t:ch_fence', 'owner-b', 30_000)).toBeUndefined();
    let current: string | undefined;
    while (current === undefined) current = await leases.take('t:ch_fence', 'owner-b', 30_000);
    expect(await leases.give('t:ch_fence', stale!)).toBe(false);
    expect(await leases.extend('t:ch_fence', stale!, 30_000)).toBe(false);
    expect(await leases.take('t:ch_fence', 'owner-c', 30_000)).toBeUndefined();
    expect(await leases.extend('t:ch_fence', current, 30_000)).toBe(true);
    expect(await leases.give('t:ch_fence', current)).toBe(true);
    const next = await leases.take('t:ch_fence', 'owner-c', 30_000);
    expect(next).toBeDefined();
  });
});
