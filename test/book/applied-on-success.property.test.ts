// Issue 36 "Done when" (§1): safety and liveness as one property, on every setup and in every mode. The model and the
// invariant are applied-on-success-model.ts (gateway and API Pix facts, refunds at each status, the postback, the
// reconciler, a replay and a release, transient throws and timeouts, expired done marks); the SIGKILL of an instance
// mid-handler is applied-on-success-kill.property.test.ts.
// Setups: three instances on memory; two on Redis (single server and a 3-master Cluster, each instance with its own
// client) and on Postgres (with and without the inbox). Modes: inline, background and durable. Durable: the receivers
// only claim and queue; on Redis, a real BullMQ queue and `startWorker` (retries with backoff) run the jobs with the
// book; on memory and Postgres, an in-process queue that runs a rejected job again (`processing.runQueued`).
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { memoryDedupeStore, memoryPaymentBook } from '../../src/index.js';
import { createDurableQueue, redisDedupeStore, redisPaymentBook, startWorker } from '../../src/redis/index.js';
import { redisTargetNames, useRedisTargets, type RedisTarget } from '../helpers/redis-targets.js';
import { deliverPlan, plans, type Durable, type Mode } from './applied-on-success-model.js';
import { usePostgresSetups } from './applied-on-success-postgres.js';

const modes = ['inline', 'background', 'durable'] as const;
const runsPer = 6;
let queues = 0;

/** Durable on Redis: a real BullMQ queue and worker (`startWorker`, retries with a short backoff) for one plan. */
function bullmq(target: RedisTarget): Durable {
  return {
    open: async (processing) => {
      const queueName = `door-${process.pid}-${++queues}`;
      const queue = await createDurableQueue({ connection: target.url, queueName });
      const worker = await startWorker({
        processing,
        connection: target.url,
        queueName,
        concurrency: 4,
        retry: { attempts: 8, backoff: { delayMs: 5, factor: 1 } },
      });
      const settle = async () => {
        for (let tries = 0; tries < 2_000; tries++) {
          const counts = await queue.counts();
          if (counts.failed > 0) throw new Error(`a job was dead-lettered: ${JSON.stringify(counts)}`);
          if (counts.waiting + counts.active + counts.delayed === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error('the queue did not settle');
      };
      return {
        queue,
        settle,
        close: async () => {
          await worker.close();
          await queue.close();
        },
      };
    },
  };
}

// One Redis server, one Cluster and one PostgreSQL for the whole file (started once, not per mode).
const targets = useRedisTargets();
const postgresSetup = usePostgresSetups('door');

describe.each(modes)('issue 36: every genuine fact runs once, never twice; a wrong payment never runs (%s)', (mode: Mode) => {
  it('memory: three instances sharing the book and the store objects', async () => {
    await fc.assert(
      fc.asyncProperty(plans(3), (plan) => {
        const store = memoryDedupeStore();
        return deliverPlan(plan, { book: memoryPaymentBook(), store: () => store }, 3, mode);
      }),
      { numRuns: runsPer * 2, seed: 36 },
    );
  }, 120_000);

  it.each(redisTargetNames)(
    'redis (%s): two instances, each with its own client',
    async (name) => {
      const clients = [targets(name).client, targets(name).connect()];
      let prefixes = 0;
      await fc.assert(
        fc.asyncProperty(plans(2), (plan) => {
          const prefix = `{door-p-${mode}-${++prefixes}}:`;
          const stores = clients.map((client) => redisDedupeStore({ client, prefix, quarantine: false }));
          const book = redisPaymentBook({ client: clients[0]!, prefix: prefix + 'book:' });
          return deliverPlan(plan, { book, store: (i) => stores[i], durable: bullmq(targets(name)) }, 2, mode);
        }),
        { numRuns: runsPer, seed: 36 },
      );
    },
    120_000,
  );

  it.each([false, true])(
    'postgres (with the inbox: %s): two instances',
    async (withInbox) => {
      await fc.assert(
        fc.asyncProperty(plans(2), async (plan) => {
          const { setup } = await postgresSetup(withInbox);
          return deliverPlan(plan, setup, 2, mode);
        }),
        { numRuns: runsPer, seed: 36 },
      );
    },
    120_000,
  );
});
