import PQueue from 'p-queue';
import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { PixEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { ProcessingReason } from '../shared/reasons.js';
import type { ProcessingKernel } from './processing-kernel.js';

export interface BackgroundRunner {
  acknowledge(
    event: PixEvent,
    claim: HeldClaim,
    waitUntil?: (promise: Promise<unknown>) => void,
    link?: Record<string, string>,
  ): Promise<ProcessingReason | undefined>;
  /** Waiting plus running events. */
  readonly size: number;
  onIdle(): Promise<void>;
}

/**
 * Background: answer 200 at once, then run the handlers in this process with retries and backoff.
 * The claim is renewed from the moment it is taken, while the event waits in the queue too, and every
 * run is bounded by `handlerTimeoutMs`, so hung handlers free their slot and never starve the queue.
 */
export function createBackgroundRunner(kernel: ProcessingKernel): BackgroundRunner {
  const { attempts, backoffMs, backoffFactor, concurrency, maxQueued } = kernel.config.background;
  const queue = new PQueue({ concurrency });

  async function runWithRetries(event: PixEvent, claim: HeldClaim, link: Record<string, string> | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (claim.lost) {
        kernel.metrics.failed({ claimLost: true });
        return kernel.fail(event, undefined, { ok: false, error: new PixhookError('claim_lost', `the claim on ${claim.key} lapsed while the event waited in the queue`), claimLost: true }, attempt);
      }
      const outcome = await kernel.attempt(event, claim, attempt, link);
      if (outcome.ok) return kernel.succeed(claim, outcome);
      kernel.metrics.failed(outcome);
      if (attempt >= attempts || outcome.claimLost) return kernel.fail(event, claim, outcome, attempt);
      kernel.log.warn({ key: claim.key, event: event.name, attempt, error: describeError(outcome.error) }, 'pixhook: handler failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, backoffMs * backoffFactor ** (attempt - 1)));
    }
  }

  return {
    async acknowledge(event, claim, waitUntil, link) {
      if (queue.size + queue.pending >= maxQueued) {
        await kernel.release(claim);
        return 'queue_full';
      }
      kernel.keepAlive(queue.add(() => runWithRetries(event, claim, link)), waitUntil);
      return undefined;
    },
    get size() {
      return queue.size + queue.pending;
    },
    onIdle: () => queue.onIdle(),
  };
}
