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

// Issue 36 §2: `pixhook worker --postgres <url>` runs each job through the book the app keeps in that database,
// while the queue and the dedupe store stay on --redis. Before, --postgres was an unknown flag (exit 2).
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
  queue = await createDurableQueue({ connection: server.url, queueName: 'wpb' });
  receiver = createReceiver({ secret: testSecret, mode: 'durable', queue, store: redisDedupeStore({ client }) });
});

afterAll(async () => {
  await stopAllFixtures();
  await queue.close();
  client.disconnect();
  await server.dispose();
});

describe('pixhook worker --postgres: the book kept in that database', () => {
  it('holds a wrong-amount payment the Postgres book expects (its handler never runs) and runs the right one once', async () => {
    const book = postgresPaymentBook({ db: postgres().pool });
    await book.migrate();
    await book.expect({ id: 'tx_wpb_wrong', amountInCents: 2590 });
    for (const delivery of [paidDelivery('tx_wpb_wrong', 100), paidDelivery('tx_wpb_right', 1000)])
      expect((await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body })).status).toBe(200);
    expect(await book.held()).toEqual([]);

    const args = ['worker', '--redis', server.url, '--queue', 'wpb', '--handlers', printing, '--postgres', postgres().server.url];
    const worker = startFixture(bin, {}, args);
    await until(async () => (await queue.counts()).completed === 2);
    await worker.stop();
    expect(worker.lines.filter((line) => line['handled'] !== undefined).map((line) => line['handled'])).toEqual(['tx_wpb_right']);
    expect((await book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
      ['tx_wpb_wrong', ['amount_mismatch']],
    ]);
    // The book judged was the Postgres one: the Redis book (on the queue's server) was never written.
    expect(await redisPaymentBook({ client }).held()).toEqual([]);
    expect(await client.keys('pixhook:{book}:*')).toEqual([]);
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
