import { describe, expect, it } from 'vitest';
import { createProcessing, type AckMode, type Processing } from '../../src/index.js';
import { createDurableQueue, redisDedupeStore, redisPaymentBook, startWorker } from '../../src/redis/index.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';
import { deliverPairs, orderRecorder, orderViolations } from './order-recorder.js';

const targets = useRedisTargets();
let run = 0;

// Issue 28 "Effects out of order across instances": two processings on one Redis, each charge's paid and
// refunded at once on the two. Before the lease, 36 of 40 overlapped inline and 16–33 ran backwards durably.
describe.each(redisTargetNames)('one order of effects per charge on Redis (%s)', (name) => {
  describe.each<[AckMode, string]>([
    ['inline', '{order}:'],
    ['inline', 'order-untagged:'],
    ['background', '{order}:'],
  ])('two processings, %s mode, store prefix %s', (mode, storePrefix) => {
    it("40 charges: one charge's handlers never overlap; paid's finish before refunded's start", async () => {
      const target = targets(name);
      const tag = `r${++run}`;
      const charges = Array.from({ length: 40 }, (_, i) => `ch_${tag}_${i}`);
      const recorder = orderRecorder(charges);
      const instances = ['a', 'b'].map((instance) => {
        const client = target.connect();
        const store = redisDedupeStore({ client, prefix: storePrefix.replace(':', `${tag}:`), quarantine: false });
        recorder.watch(store);
        const processing = createProcessing({
          mode,
          store,
          book: redisPaymentBook({ client, prefix: `${tag}:{order}:book:` }),
          orderWaitMs: 60_000,
          ...(mode === 'background' ? { background: { concurrency: 100 } } : { deadlineMs: 60_000 }),
        });
        recorder.register(processing, instance);
        return processing;
      }) as [Processing, Processing];
      const results = await deliverPairs(instances, charges, recorder);
      expect(results.filter((result) => result.reason !== undefined && result.reason !== 'held')).toEqual([]);
      await Promise.all(instances.map((processing) => processing.drain({ timeoutMs: 60_000 })));
      expect(recorder.started.size).toBe(charges.length);
      expect(orderViolations(recorder.spans)).toEqual([]);
    }, 120_000);
  });

  it('durable mode, two receivers and two workers: the jobs of one charge run one at a time, in the order the book applied them', async () => {
    const target = targets(name);
    const tag = `d${++run}`;
    const charges = Array.from({ length: 40 }, (_, i) => `ch_${tag}_${i}`);
    const recorder = orderRecorder(charges);
    const queueName = `order-${tag}`;
    const queue = await createDurableQueue({ connection: target.url, queueName });
    const storeOf = (client = target.connect()) => redisDedupeStore({ client, prefix: `{order}${tag}:`, quarantine: false });
    // The receivers only claim and queue; the book judges each job on the worker that runs it.
    const receivers = [0, 1].map(() => createProcessing({ mode: 'durable', queue, store: storeOf() })) as [Processing, Processing];
    const bookOf = (client = target.connect()) => redisPaymentBook({ client, prefix: `${tag}:{order}:book:` });
    const workers = await Promise.all(
      ['w1', 'w2'].map((instance) => {
        const client = target.connect();
        const store = storeOf(client);
        recorder.watch(store);
        const processing = createProcessing({ store, orderWaitMs: 60_000, book: bookOf(client) });
        recorder.register(processing, instance);
        return startWorker({ processing, connection: target.url, queueName, concurrency: 100 });
      }),
    );
    try {
      const results = await deliverPairs(receivers, charges, recorder);
      expect(results.filter((result) => result.reason !== undefined && result.reason !== 'held')).toEqual([]);
      const queued = results.filter((result) => result.reason === undefined).length;
      await until(async () => (await queue.counts()).completed === queued);
      expect(await queue.counts()).toMatchObject({ failed: 0, completed: queued });
      // A job the book held on the worker (a paid after its refund: stale) ran no handler.
      expect(recorder.spans.length + (await bookOf().held()).length).toBe(queued);
      expect(recorder.started.size).toBe(charges.length);
      expect(orderViolations(recorder.spans)).toEqual([]);
      // Both workers ran jobs (the order is kept across processes' worth of workers, not by one worker doing all).
      expect(new Set(recorder.spans.map((span) => span.instance)).size).toBe(2);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
    }
  }, 120_000);
});

async function until(check: () => Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + 90_000;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error('timed out waiting for the queue');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
