import { Redis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type HandlerFailure, type Receiver } from '../../src/index.js';
import { createDurableQueue, redisDedupeStore, startWorker, type DurableQueue } from '../../src/redis/index.js';
import { dedupeIdForKey, freshJobId, jobIdForKey, keyForJobId } from '../../src/redis/job-id.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { headersOf, paidDelivery, testSecret, until, type Delivery } from './deliveries.js';
import { redisTargetNames, useRedisTarget } from '../helpers/redis-targets.js';

/** The job the key's add made: the one its deduplication id points at. */
async function jobOfKey(queue: DurableQueue, key: string) {
  const id = await queue.queue.getDeduplicationJobId(dedupeIdForKey(key));
  return id ? queue.queue.getJob(id) : undefined;
}

function receive(receiver: Receiver, delivery: Delivery) {
  return receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body });
}

describe('job ids', () => {
  it('escapes dedupe keys into ids BullMQ accepts, reversibly', () => {
    for (const key of ['transaction_paid:tx:1:paid', '12345', 'a%3Ab:c', '0']) {
      const id = jobIdForKey(key);
      expect(id).not.toContain(':');
      expect(`${parseInt(id, 10)}`).not.toBe(id);
      expect(keyForJobId(id)).toBe(key);
    }
  });

  it('a deduplication id of bounded length per key, and short fresh job ids BullMQ accepts', () => {
    const long = `transaction_paid:${'x'.repeat(500)}:paid:1000`;
    const ids = ['transaction_paid:tx:1:paid', 'transaction_paid:tx:2:paid', long].map(dedupeIdForKey);
    expect(new Set(ids).size).toBe(3);
    expect(ids.map((id) => id.length)).toEqual([26, 26, 26]);
    expect(dedupeIdForKey(long)).toBe(ids[2]);
    // The same id as every earlier version (132 bits of the key's SHA-256), so a queue keeps refusing the keys of
    // jobs added before an upgrade: pinned, whichever node:crypto call computes it.
    expect(ids[0]).toBe('pix.WzKFlNGoKl1QGkg8Pd5RQt');
    const fresh = [freshJobId(), freshJobId()];
    expect(fresh[0]).not.toBe(fresh[1]);
    for (const id of fresh) {
      expect(id).not.toContain(':');
      expect(`${parseInt(id, 10)}`).not.toBe(id);
      expect(id.length).toBeLessThan(20);
    }
  });
});

describe.each(redisTargetNames)('on %s', (kind) => {
  const redis = useRedisTarget(kind);
  let client: Redis | Cluster;
  let queueCount = 0;
  beforeAll(() => {
    client = redis().connect();
  });
  afterAll(() => client.disconnect());

  async function durableSetup(prefix: string) {
    const queueName = `q${++queueCount}`;
    const queue = await createDurableQueue({ connection: redis().url, queueName });
    // Hash-tagged, so the dedupe keys are valid on the cluster whatever the store requires.
    const receiver = createReceiver({
      secret: testSecret,
      mode: 'durable',
      queue,
      store: redisDedupeStore({ client, prefix: `{${prefix}}` }),
    });
    return { queue, receiver, queueName };
  }

  describe('createDurableQueue', () => {
    let queue: DurableQueue;
    beforeAll(async () => {
      queue = await createDurableQueue({ connection: redis().url, queueName: 'ids' });
    });
    afterAll(() => queue.close());

    it('makes one job per dedupe key, even for keys with colons or digits only; the second add answers duplicate', async () => {
      expect(queue.claims).toBe(true);
      for (const key of ['transaction_paid:tx:with:colons:paid', '42']) {
        const event = { key, name: 'transaction_paid', body: '{}', source: 'webhook' as const, receivedAt: new Date().toISOString() };
        expect(await queue.enqueue(event)).toBeUndefined();
        expect(await queue.enqueue(event)).toBe('duplicate');
        const job = await jobOfKey(queue, key);
        expect(job?.data.key).toBe(key);
      }
      expect((await queue.counts()).waiting).toBe(2);
    });
  });

  describe('durable mode', () => {
    it('queues, then answers 200; duplicates answer 200 duplicate and make no second job', async () => {
      const { queue, receiver } = await durableSetup('d1:');
      try {
        const delivery = paidDelivery('tx_durable_1');
        const first = await receive(receiver, delivery);
        expect(first.status).toBe(200);
        expect(first.reason).toBeUndefined();
        const second = await receive(receiver, delivery);
        expect(second.reason).toBe('duplicate');
        const job = await jobOfKey(queue, delivery.key);
        expect(job?.data).toMatchObject({ key: delivery.key, name: 'transaction_paid' });
        expect((await queue.counts()).waiting).toBe(1);
      } finally {
        await queue.close();
      }
    });
  });

  describe('the add is the claim', () => {
    it('takes no dedupe store call for a queued event; of five concurrent copies one is queued, four are duplicates', async () => {
      const queueName = `q${++queueCount}`;
      const queue = await createDurableQueue({ connection: redis().url, queueName });
      const store = redisDedupeStore({ client, prefix: '{d3}:' });
      const calls: string[] = [];
      const counted = new Proxy(store, {
        get(target, name, receiver) {
          const value: unknown = Reflect.get(target, name, receiver);
          if (typeof value !== 'function' || !['claim', 'complete', 'release', 'extend'].includes(String(name))) return value;
          return (...args: unknown[]) => (calls.push(String(name)), (value as (...a: unknown[]) => unknown).apply(target, args));
        },
      });
      const receiver = createReceiver({ secret: testSecret, mode: 'durable', queue, store: counted });
      try {
        const delivery = paidDelivery('tx_add_claims');
        const answers = await Promise.all(Array.from({ length: 5 }, () => receive(receiver, delivery)));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
        expect(answers.filter((a) => a.reason === undefined)).toHaveLength(1);
        expect(answers.filter((a) => a.reason === 'duplicate')).toHaveLength(4);
        expect((await queue.counts()).waiting).toBe(1);
        expect(calls).toEqual([]);
      } finally {
        await queue.close();
      }
    });
  });

  describe('startWorker', () => {
    it('retries a failing handler with backoff until it succeeds', async () => {
      const { queue, receiver, queueName } = await durableSetup('w1:');
      const attempts: number[] = [];
      receiver.on('transaction_paid', (_event, context) => {
        attempts.push(context.attempt);
        if (context.attempt < 3) throw new Error('bank API down');
      });
      const worker = await startWorker({
        processing: internalsOf(receiver).processing,
        connection: redis().url,
        queueName,
        retry: { attempts: 5, backoff: { delayMs: 10 } },
      });
      try {
        expect((await receive(receiver, paidDelivery('tx_retry'))).status).toBe(200);
        await until(async () => (await queue.counts()).completed === 1);
        expect(attempts).toEqual([1, 2, 3]);
        expect(receiver.metrics()).toMatchObject({ handled: 1, failed: 2, deadLettered: 0 });
      } finally {
        await worker.close();
        await queue.close();
      }
    });

    it('dead-letters after the last attempt, lists it, and replays it with fresh attempts', async () => {
      const { queue, receiver, queueName } = await durableSetup('w2:');
      let failing = true;
      let handled = 0;
      const failures: HandlerFailure[] = [];
      receiver.on('transaction_paid', () => {
        if (failing) throw new Error('ledger rejected');
        handled++;
      });
      receiver.onError((failure) => void failures.push(failure));
      const worker = await startWorker({
        processing: internalsOf(receiver).processing,
        connection: redis().url,
        queueName,
        retry: { attempts: 2, backoff: { delayMs: 10 } },
      });
      try {
        const a = paidDelivery('tx_dead_a');
        const b = paidDelivery('tx_dead_b');
        await receive(receiver, a);
        await receive(receiver, b);
        await until(async () => (await queue.counts()).failed === 2);
        const dead = await queue.listDeadLetters();
        expect(dead.map((d) => d.key).sort()).toEqual([a.key, b.key].sort());
        expect(dead[0]).toMatchObject({ name: 'transaction_paid', attemptsMade: 2 });
        expect(dead[0]!.failedReason).toContain('ledger rejected');
        // Kept by BullMQ's default: the jobs carry no `removeOnFail` option.
        const [failedJob] = await queue.queue.getFailed();
        expect(failedJob!.opts).not.toHaveProperty('removeOnFail');
        expect(receiver.metrics()).toMatchObject({ deadLettered: 2, failed: 4, handled: 0 });
        expect(failures.map((f) => f.attempt)).toEqual([2, 2]);
        // The sender's retries of a dead-lettered event are duplicates: only a replay runs it again.
        expect((await receive(receiver, a)).reason).toBe('duplicate');

        failing = false;
        // Found by the key even once its deduplication id has lapsed (the failed jobs are searched for it).
        expect(await queue.queue.removeDeduplicationKey(dedupeIdForKey(a.key))).toBe(1);
        expect(await queue.replayDeadLetter(a.key)).toBe(true);
        expect(await queue.replayDeadLetter('transaction_paid:nope:paid')).toBe(false);
        await until(() => handled === 1);
        expect(await queue.replayDeadLetters()).toBe(1);
        await until(() => handled === 2);
        expect(await queue.listDeadLetters()).toEqual([]);
        expect((await queue.counts()).completed).toBe(2);
      } finally {
        await worker.close();
        await queue.close();
      }
    });

    it('rejects attempts outside 1..100', async () => {
      const receiver = createReceiver({ secret: testSecret });
      await expect(
        startWorker({ processing: internalsOf(receiver).processing, connection: redis().url, retry: { attempts: 0 } }),
      ).rejects.toThrow('`retry.attempts`');
    });
  });

  describe('connections', () => {
    it('accepts an ioredis client (left open) or connection options', async () => {
      const own = redis().connect({ maxRetriesPerRequest: null });
      const byClient = await createDurableQueue({ connection: own, queueName: 'conn' });
      const optionsClient = kind === 'cluster' ? redis().connect() : undefined;
      const byOptions = await createDurableQueue({
        connection: optionsClient ?? { host: '127.0.0.1', port: redis().server!.port },
        queueName: 'conn',
      });
      try {
        const event = {
          key: 'transaction_paid:conn:paid',
          name: 'transaction_paid',
          body: '{}',
          source: 'webhook' as const,
          receivedAt: new Date().toISOString(),
        };
        await byClient.enqueue(event);
        await byOptions.enqueue(event);
        expect((await byOptions.counts()).waiting).toBe(1);
      } finally {
        await byClient.close();
        await byOptions.close();
      }
      expect(await own.ping()).toBe('PONG');
      own.disconnect();
      optionsClient?.disconnect();
    });
  });
});

// Stopping and restarting the queue's Redis is a single server's move: one server for the queue, one for the claims.
describe('durable mode, single server', () => {
  let dedupeServer: { client: Redis; dispose(): Promise<void> };
  beforeAll(async () => {
    const server = await startRedisServer();
    const dedupeClient = new Redis(server.url);
    dedupeServer = { client: dedupeClient, dispose: async () => (dedupeClient.disconnect(), server.dispose()) };
  });
  afterAll(() => dedupeServer.dispose());

  it('answers 503 enqueue_failed and releases the claim when the queue’s Redis is down', async () => {
    const queueServer = await startRedisServer();
    const queue = await createDurableQueue({ connection: queueServer.url, queueName: 'down' });
    const receiver = createReceiver({
      secret: testSecret,
      mode: 'durable',
      queue,
      store: redisDedupeStore({ client: dedupeServer.client, prefix: '{d2}:' }),
      storeTimeoutMs: 500,
    });
    const delivery = paidDelivery('tx_enqueue_down');
    try {
      await queueServer.stop();
      const down = await receive(receiver, delivery);
      expect(down.status).toBe(503);
      expect(down.reason).toBe('enqueue_failed');
      expect(down.headers['retry-after']).toBe('5');
      expect(await dedupeServer.client.exists(`{d2}:${delivery.key}`)).toBe(0);
      await queueServer.start();
      await until(async () => (await receive(receiver, delivery)).status === 200, 100);
      expect((await queue.counts()).waiting).toBe(1);
    } finally {
      await queue.close();
      await queueServer.dispose();
    }
  });
});
