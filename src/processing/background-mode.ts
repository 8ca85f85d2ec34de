import PQueue from 'p-queue';
import { PixhookError } from '../shared/pixhook-error.js';
import type { Acknowledgement, ClaimedRun } from './acknowledgement.js';
import type { ResolvedProcessingOptions } from './processing-options.js';
import type { FailedAttempt } from './run-attempt.js';

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
      const ran = await run.attempt(attempt);
      // Applied, unless the commit that held the handlers' effects failed (the Postgres inbox's transaction: nothing
      // committed, the order lease given back): then the run failed like a handler, and retries under its claim,
      // which `succeed` kept (renewed again below).
      if (ran.ok && (await run.succeed(ran))) return;
      const outcome: FailedAttempt = ran.ok ? { ok: false, error: run.notCommitted } : ran;
      if (attempt >= attempts || outcome.claimLost) return run.fail(outcome, attempt);
      if (ran.ok) run.hold();
      run.retrying(outcome, attempt);
      await new Promise((resolve) => setTimeout(resolve, delayAfter(attempt)));
      // The failed commit gave the charge's order lease back: the retry takes it again, in line behind the events
      // of the charge that arrived meanwhile, so it never overlaps one of them. Still busy: a failed attempt.
      while (ran.ok && !(await run.reenter())) {
        attempt++;
        const busy: FailedAttempt = {
          ok: false,
          error: new PixhookError('resource_busy', `${run.key}: its charge stayed busy past orderWaitMs`),
        };
        if (attempt >= attempts) return run.fail(busy, attempt);
        run.retrying(busy, attempt);
        await new Promise((resolve) => setTimeout(resolve, delayAfter(attempt)));
      }
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
