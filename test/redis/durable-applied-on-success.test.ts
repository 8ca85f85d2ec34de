// Issue 36 §1, durable mode on a Redis payment book: the payment is applied when the worker's job succeeds, never
// at intake nor by a failed attempt. The queue's retry then finds it still to run; once it succeeded, a redelivery
// answers `duplicate` and nothing runs again. A wrong amount is held on the worker and its handler never runs.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, type Violation } from '../../src/index.js';
import {
  createDurableQueue,
  redisDedupeStore,
  redisPaymentBook,
  startWorker,
  type DurableQueue,
  type DurableWorker,
  type RedisPaymentBook,
} from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { headersOf, paidDelivery, testSecret, until, type Delivery } from './deliveries.js';

let server: RedisServer;
let client: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
});

afterAll(async () => {
  client.disconnect();
  await server.dispose();
});

let queues = 0;

/** A durable receiver (it claims and queues) and a worker whose processing judges each job in the Redis book. */
async function durableSetup(handler: (id: string) => Promise<void> | void) {
  const queueName = `door-${++queues}`;
  const queue: DurableQueue = await createDurableQueue({ connection: server.url, queueName });
  const receiver = createReceiver({ secret: testSecret, mode: 'durable', queue, store: redisDedupeStore({ client }) });
  const book: RedisPaymentBook = redisPaymentBook({ client, prefix: `door-${queues}:{book}:` });
  const told: string[] = [];
  const processing = createProcessing({ book })
    .on('transaction_paid', (event) => handler(event.transaction.id))
    .onViolation((violation: Violation) => void told.push(`${violation.reason}/${violation.action}`));
  const worker: DurableWorker = await startWorker({
    processing,
    connection: server.url,
    queueName,
    retry: { attempts: 3, backoff: { delayMs: 10 } },
  });
  const receive = (delivery: Delivery) => receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body });
  const close = async () => {
    await worker.close();
    await queue.close();
    await receiver.close();
  };
  return { queue, book, told, receive, close };
}

describe('durable mode with a Redis payment book: applied when the worker’s job succeeds', () => {
  it('a handler that throws once: not applied after the failed attempt, applied once by the retry, then duplicate', async () => {
    const counts = { calls: 0, ok: 0 };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const setup = await durableSetup(async () => {
      counts.calls += 1;
      if (counts.calls === 1) throw new Error('the ledger is down');
      await gate;
      counts.ok += 1;
    });
    try {
      const delivery = paidDelivery('tx_door_once', 2590);
      const first = await setup.receive(delivery);
      expect([first.status, first.reason]).toEqual([200, undefined]);
      // The first attempt failed and the queue's retry is in its handler, held at the gate: nothing is applied.
      await until(() => counts.calls === 2);
      const during = await setup.book.get('tx_door_once');
      expect(during?.status ?? 'pending').toBe('pending');
      expect((during?.timeline ?? []).filter((entry) => entry.outcome === 'apply')).toEqual([]);
      open();
      await until(async () => (await setup.queue.counts()).completed === 1);
      expect(counts).toEqual({ calls: 2, ok: 1 });
      const after = await setup.book.get('tx_door_once');
      expect(after?.status).toBe('paid');
      expect(after?.timeline.map((entry) => entry.outcome)).toEqual(['apply']);

      // The sender's redelivery: duplicate at the door, no job queued, the handler never runs again.
      const again = await setup.receive(delivery);
      expect([again.status, again.reason]).toEqual([200, 'duplicate']);
      expect(await setup.queue.counts()).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 1, failed: 0 });
      expect(counts).toEqual({ calls: 2, ok: 1 });
      expect(setup.told).toEqual([]);
    } finally {
      await setup.close();
    }
  }, 60_000);

  it('a wrong amount is held on the worker: its handler never runs, the right one runs once', async () => {
    const ran: string[] = [];
    const setup = await durableSetup((id) => void ran.push(id));
    try {
      await setup.book.expect({ id: 'tx_door_wrong', amountInCents: 2590 });
      await setup.book.expect({ id: 'tx_door_right', amountInCents: 2590 });
      for (const delivery of [paidDelivery('tx_door_wrong', 100), paidDelivery('tx_door_right', 2590)])
        expect((await setup.receive(delivery)).status).toBe(200);
      await until(async () => (await setup.queue.counts()).completed === 2);
      expect(ran).toEqual(['tx_door_right']);
      expect(setup.told).toEqual(['amount_mismatch/hold']);
      expect((await setup.book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
        ['tx_door_wrong', ['amount_mismatch']],
      ]);
      expect((await setup.book.get('tx_door_wrong'))?.status).toBe('pending');
      expect((await setup.book.get('tx_door_right'))?.status).toBe('paid');
      // Redelivered, the held one is answered at the door and still never runs.
      const again = await setup.receive(paidDelivery('tx_door_wrong', 100));
      expect(again.status).toBe(200);
      expect(ran).toEqual(['tx_door_right']);
    } finally {
      await setup.close();
    }
  }, 60_000);
});
