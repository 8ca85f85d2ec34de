import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { PixEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import type { ProcessingReason } from '../shared/reasons.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { QueuedEvent } from './processing-options.js';
import type { ProcessingKernel } from './processing-kernel.js';

/**
 * Durable: write the verified bytes to the queue, then answer 200. Queued is as good as processed
 * for the sender, so the key is marked done at once; the queue's job id (the key) refuses a second job.
 */
export async function acknowledgeDurable(
  kernel: ProcessingKernel,
  event: PixEvent,
  claim: HeldClaim,
  body: string,
  trace: Record<string, string> | undefined,
): Promise<{ reason?: ProcessingReason; hint?: string }> {
  const job: QueuedEvent = {
    key: claim.key,
    name: event.name,
    body,
    source: event.source ?? 'webhook',
    receivedAt: new Date().toISOString(),
    ...(trace && { trace }),
  };
  try {
    await withTimeout(Promise.resolve().then(() => kernel.config.queue!.enqueue(job)), kernel.config.storeTimeoutMs, 'enqueue');
  } catch (error) {
    await kernel.release(claim);
    return { reason: 'enqueue_failed', hint: describeError(error) };
  }
  kernel.keeper.drop(claim);
  try {
    const marking = kernel.store.complete(claim.key, claim.owner, kernel.config.dedupeTtlMs);
    if (marking instanceof Promise) await marking;
  } catch (error) {
    kernel.log.warn({ key: claim.key, error: describeError(error) }, 'pixhook: could not mark a queued event done; the queue job id still dedupes it');
  }
  return {};
}
