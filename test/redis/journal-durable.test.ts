import { describe, expect, it } from 'vitest';
import { createReceiver, memoryJournal } from '../../src/index.js';
import { createDurableQueue, redisDedupeStore, startWorker } from '../../src/redis/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { headersOf, paidDelivery, testSecret, until } from './deliveries.js';

// Issue 23: a durable worker's runs are appended to the delivery's journal entry; a dead-letter replay's
// runs are marked as replay runs.
describe('the journal in durable mode', () => {
  const redis = useRedisTarget('single');

  it("appends the worker's runs to the delivery, and marks a dead letter's replayed runs", async () => {
    const journal = memoryJournal();
    const queue = await createDurableQueue({ connection: redis().url, queueName: 'journal-durable' });
    const client = redis().connect();
    const receiver = createReceiver({
      secret: testSecret,
      mode: 'durable',
      queue,
      journal,
      store: redisDedupeStore({ client, prefix: '{journal-durable}:' }),
    });
    let failing = true;
    receiver.on('transaction_paid', () => {
      if (failing) throw new Error('ledger rejected');
    });
    const worker = await startWorker({
      processing: internalsOf(receiver).processing,
      connection: redis().url,
      queueName: 'journal-durable',
      retry: { attempts: 2, backoff: { delayMs: 10 } },
    });
    try {
      const delivery = paidDelivery('tx_journal_durable');
      expect((await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body })).status).toBe(200);
      await until(async () => (await queue.counts()).failed === 1);
      await receiver.drain();
      const [entry] = await journal.list();
      expect(entry).toMatchObject({ status: 200, key: delivery.key });
      expect(entry!.attempts.map((a) => [a.attempt, a.outcome, a.run])).toEqual([
        [1, 'failed', undefined],
        [2, 'failed', undefined],
      ]);
      expect(entry!.attempts[0]!.error).toContain('ledger rejected');

      failing = false;
      expect(await queue.replayDeadLetter(delivery.key)).toBe(true);
      await until(async () => (await queue.counts()).completed === 1);
      await until(async () => ((await journal.get(entry!.id))?.attempts.length ?? 0) === 3);
      expect((await journal.get(entry!.id))!.attempts[2]).toMatchObject({ attempt: 1, outcome: 'ok', run: 'replay' });
    } finally {
      await worker.close();
      await queue.close();
      client.disconnect();
    }
  });
});
