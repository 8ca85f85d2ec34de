import PQueue from 'p-queue';
import { PixhookError } from '../shared/pixhook-error.js';
import type { Acknowledgement, ClaimedRun } from './acknowledgement.js';
import type { ResolvedProcessingOptions } from './processing-options.js';

/**
 * Background: answer 200 at once, then run the handlers in this process with retries and backoff.
 * The claim is renewed from the moment it is taken, while the event waits in the queue too, and every
 * run is bounded by `handlerTimeoutMs`, so hung handlers free their slot and never starve the queue.
 */
export function createBackgroundMode(config: Pick<ResolvedProcessingOptions, 'background' | 'retry'>): Acknowledgement {
  const { concurrency, maxQueued } = config.background;
  const { attempts, delayAfter } = config.retry;
  const queue = new PQueue({ concurrency });

  async function runWithRetries(run: ClaimedRun): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (run.lost) {
        const error = new PixhookError('claim_lost', `the claim on ${run.key} lapsed while the event waited in the queue`);
        return run.fail({ ok: false, error, claimLost: true }, attempt);
      }
      const outcome = await run.attempt(attempt);
      if (outcome.ok) return run.succeed(outcome);
      if (attempt >= attempts || outcome.claimLost) return run.fail(outcome, attempt);
      run.retrying(outcome, attempt);
      await new Promise((resolve) => setTimeout(resolve, delayAfter(attempt)));
    }
  }

  return {
    acknowledge(run) {
      if (queue.size + queue.pending >= maxQueued) return run.release().then(() => 'queue_full');
      run.hold();
      run.keepAlive(queue.add(() => runWithRetries(run)));
      return undefined;
    },
    get size() {
      return queue.size + queue.pending;
    },
    idle: () => queue.onIdle(),
  };
}
