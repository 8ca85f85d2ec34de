// Durable mode: each item of a standard call is queued as its own one-event job, and a worker reads it back.
import { describe, expect, it } from 'vitest';
import { createApiPixReceiver, type PixReceivedEvent, type PixRefundUpdatedEvent } from '../../src/api-pix/index.js';
import { createProcessing, type PixEvent, type QueuedEvent } from '../../src/index.js';
import { call, pixWebhook1, urlSecret } from './fixtures.js';

describe('API Pix in durable mode', () => {
  it('queues one job per event with its own envelope, and a worker runs each from the job alone', async () => {
    const jobs: QueuedEvent[] = [];
    const receiver = createApiPixReceiver({
      auth: { urlSecret: { secret: urlSecret } },
      mode: 'durable',
      queue: { enqueue: async (job) => void jobs.push(JSON.parse(JSON.stringify(job)) as QueuedEvent) },
    }).onAny(() => {});
    const result = await receiver.receive(call(pixWebhook1, { path: '/hook' }));
    expect(result.status).toBe(200);
    expect(jobs.map((job) => job.name)).toEqual(['pix_received', 'pix_refund_updated']);
    // The job holds the item, not the whole call.
    expect(JSON.parse(jobs[0]!.body)).toEqual({ event: 'pix_received', pix: pixWebhook1 });

    const seen: PixEvent[] = [];
    const worker = createProcessing({ mode: 'durable', queue: { enqueue: async () => undefined } }).onAny((event) => void seen.push(event));
    for (const job of jobs) await worker.runQueued(job, { attempt: 1, final: true });
    expect((seen[0] as PixReceivedEvent).pix.amountInCents).toBe(11000);
    expect((seen[1] as PixRefundUpdatedEvent).refund).toMatchObject({ id: '123ABC', status: 'processing' });
  });
});
