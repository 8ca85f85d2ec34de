import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from '../../src/index.js';
import { postgresPaymentBook } from '../../src/postgres/index.js';
import { createDurableQueue, redisDedupeStore, redisPaymentBook, type DurableQueue } from '../../src/redis/index.js';
import { runCli } from '../helpers/cli-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { usePostgres } from '../postgres/use-postgres.js';
import { headersOf, paidDelivery, testSecret, until } from './deliveries.js';
import { startFixture, stopAllFixtures } from './fixture-process.js';

// Issue 36 §2: `pixhook worker` runs each job through the book kept on its Redis (the receiver only queued it),
// or with `--postgres <url>` through the book kept in that database (the queue and the store stay on --redis).
const bin = fileURLToPath(new URL('../../bin/pixhook.js', import.meta.url));
const printing = fileURLToPath(new URL('./fixtures/print-handlers.js', import.meta.url));
const postgres = usePostgres();

let server: RedisServer;
let client: Redis;
let queue: DurableQueue;
let receiver: Receiver;

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
  queue = await createDurableQueue({ connection: server.url, queueName: 'wb' });
  receiver = createReceiver({ secret: testSecret, mode: 'durable', queue, store: redisDedupeStore({ client }) });
});

afterAll(async () => {
  await stopAllFixtures();
  await queue.close();
  client.disconnect();
  await server.dispose();
});

describe('pixhook worker with the book on its Redis', () => {
  it('holds a wrong-amount payment (its handler never runs) and runs the right one', async () => {
    const book = redisPaymentBook({ client });
    await book.expect({ id: 'tx_wb_wrong', amountInCents: 2590 });
    for (const delivery of [paidDelivery('tx_wb_wrong', 100), paidDelivery('tx_wb_right', 1000)])
      expect((await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body })).status).toBe(200);
    // The receiver only queued them: the book has not judged anything yet.
    expect(await book.held()).toEqual([]);

    const worker = startFixture(bin, {}, ['worker', '--redis', server.url, '--queue', 'wb', '--handlers', printing]);
    await until(async () => (await queue.counts()).completed === 2);
    await worker.stop();
    expect(worker.lines.filter((line) => line['handled'] !== undefined).map((line) => line['handled'])).toEqual(['tx_wb_right']);
    expect((await book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
      ['tx_wb_wrong', ['amount_mismatch']],
    ]);
  }, 60_000);

  it('--no-book warns once; --book-prefix with it is a usage error; worker replay --dry-run moves nothing', async () => {
    const both = await runCli(['worker', '--redis', server.url, '--handlers', printing, '--no-book', '--book-prefix', 'x:{book}:']);
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--book-prefix or --no-book') as string]);
    const bare = startFixture(bin, {}, ['worker', '--redis', server.url, '--queue', 'wb', '--handlers', printing, '--no-book']);
    await until(() => /worker on queue/.test(bare.stderr()));
    await bare.stop();
    expect(bare.stderr().match(/--no-book: the handlers run without the payment book/g)).toHaveLength(1);
    // A mistyped --book-prefix: no key under it (the book above is at pixhook:{book}:), so one warning, no new book.
    const typo = startFixture(bin, {}, [
      'worker',
      '--redis',
      server.url,
      '--queue',
      'wb',
      '--handlers',
      printing,
      '--book-prefix',
      'pixhook:{bok}:',
    ]);
    await until(() => /worker on queue/.test(typo.stderr()));
    await typo.stop();
    expect(typo.stderr().match(/pixhook worker: the book at prefix 'pixhook:\{bok\}:' is empty: a mistyped --book-prefix\?/g)).toHaveLength(
      1,
    );
    expect(await client.keys('pixhook:{bok}:*')).toEqual([]);
    const right = startFixture(bin, {}, ['worker', '--redis', server.url, '--queue', 'wb', '--handlers', printing]);
    await until(() => /worker on queue/.test(right.stderr()));
    await right.stop();
    expect(right.stderr()).not.toContain('is empty');

    const dry = await runCli(['worker', 'replay', '--redis', server.url, '--queue', 'wb', '--key', 'transaction_paid:nope', '--dry-run']);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('"wouldReplay":false');
    expect(dry.stderr).toContain('dry run: 0 dead letters on wb would be replayed');
  }, 60_000);
});

describe('pixhook worker --postgres: the book kept in that database', () => {
  it('holds a wrong-amount payment the Postgres book expects (its handler never runs) and runs the right one once', async () => {
    const book = postgresPaymentBook({ db: postgres().pool });
    await book.migrate();
    await book.expect({ id: 'tx_wpb_wrong', amountInCents: 2590 });
    // A queue of its own, so that the counts below are this test's jobs only.
    const own = await createDurableQueue({ connection: server.url, queueName: 'wpb' });
    const queuing = createReceiver({ secret: testSecret, mode: 'durable', queue: own, store: redisDedupeStore({ client }) });
    for (const delivery of [paidDelivery('tx_wpb_wrong', 100), paidDelivery('tx_wpb_right', 1000)])
      expect((await queuing.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body })).status).toBe(200);
    expect(await book.held()).toEqual([]);

    const args = ['worker', '--redis', server.url, '--queue', 'wpb', '--handlers', printing, '--postgres', postgres().server.url];
    const worker = startFixture(bin, {}, args);
    await until(async () => (await own.counts()).completed === 2);
    await worker.stop();
    await own.close();
    expect(worker.lines.filter((line) => line['handled'] !== undefined).map((line) => line['handled'])).toEqual(['tx_wpb_right']);
    expect((await book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
      ['tx_wpb_wrong', ['amount_mismatch']],
    ]);
    // The book judged was the Postgres one: the Redis book (on the queue's server) was never written.
    expect((await redisPaymentBook({ client }).held()).map((held) => held.resourceId)).not.toContain('tx_wpb_wrong');
    expect(await client.keys('pixhook:{book}:*tx_wpb*')).toEqual([]);
  }, 60_000);

  it('--book-prefix names the Postgres tables: a prefix with no tables exits 2 before any job runs', async () => {
    const typo = await runCli([
      'worker',
      '--redis',
      server.url,
      '--queue',
      'wpb',
      '--handlers',
      printing,
      '--postgres',
      postgres().server.url,
      '--book-prefix',
      'pixhook_bok',
    ]);
    expect([typo.code, typo.stderr]).toEqual([2, expect.stringContaining('pixhook_bok') as string]);
  }, 60_000);
});
