import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { createDurableQueue, startWorker } from '../../src/redis/index.js';
import { jobIdForKey } from '../../src/redis/job-id.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { testSecret, until } from './deliveries.js';

// Jobs once carried the parsed payload instead of the verified bytes; that format is gone. A job
// without `body` holds nothing pixhook verified, so it is never run: it is a dead letter at once.
const key = 'transaction_paid:tx_old_format:paid:1000';
const oldFormatJob = {
  key,
  name: 'transaction_paid',
  source: 'webhook',
  receivedAt: '2026-11-22T12:00:00.000Z',
  payload: {
    event: 'transaction_paid',
    timestamp: '2026-11-22T12:00:00Z',
    data: { id: 'tx_old_format', status: 'paid', amountInCents: 1000 },
  },
};

describe('a queued job without the verified body (the payload-only format)', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server.dispose());

  it('is refused by runQueued as payload_invalid, its handler never run', async () => {
    let handled = 0;
    const receiver = createReceiver({ secret: testSecret, mode: 'durable', queue: { enqueue: async () => {} } }).onAny(
      () => void handled++,
    );
    await expect(internalsOf(receiver).processing.runQueued(oldFormatJob as never, { attempt: 1, final: false })).rejects.toMatchObject({
      code: 'payload_invalid',
    });
    expect(handled).toBe(0);
  });

  it('is dead-lettered on its first attempt by the worker, with no payload read from it', async () => {
    const queue = await createDurableQueue({ connection: server.url, queueName: 'old-format' });
    let handled = 0;
    const receiver = createReceiver({ secret: testSecret, mode: 'durable', queue }).onAny(() => void handled++);
    const worker = await startWorker({
      processing: internalsOf(receiver).processing,
      connection: server.url,
      queueName: 'old-format',
      retry: { attempts: 3, backoff: { delayMs: 10 } },
    });
    try {
      await queue.queue.add(oldFormatJob.name, oldFormatJob as never, { jobId: jobIdForKey(key) });
      await until(async () => {
        const counts = await queue.counts();
        return counts.completed + counts.failed === 1;
      });
      expect(await queue.counts()).toMatchObject({ completed: 0, failed: 1 });
      expect(handled).toBe(0);
      const [dead] = await queue.listDeadLetters();
      expect(dead).toMatchObject({ key, attemptsMade: 1 });
      expect(dead!.failedReason).toContain('carries no verified body');
      expect(dead!.payload).toBeUndefined();
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
