import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { PixEvent } from '../events/event-types.js';
import type { ProcessingReason } from '../shared/reasons.js';
import type { AttemptOutcome } from './run-attempt.js';
import type { ProcessingKernel } from './processing-kernel.js';

/**
 * Inline: run the handlers, then answer. Past `deadlineMs` the answer is 503 `handler_timeout` while
 * the run goes on (up to `handlerTimeoutMs`) and settles the claim itself, so the sender's retry is
 * answered `in_flight` until then, and `duplicate` after a success.
 */
export function acknowledgeInline(
  kernel: ProcessingKernel,
  event: PixEvent,
  claim: HeldClaim & { later(): void },
  waitUntil?: (promise: Promise<unknown>) => void,
  link?: Record<string, string>,
): ProcessingReason | undefined | Promise<ProcessingReason | undefined> {
  const running = kernel.attempt(event, claim, 1, link);
  if (running instanceof Promise) claim.later();
  if (!(running instanceof Promise)) {
    const settled = settle(kernel, event, claim, running);
    return settled instanceof Promise ? settled.then(reasonOf) : reasonOf(settled);
  }
  const run = running.then((outcome) => settle(kernel, event, claim, outcome));
  return raceDeadline(run, kernel.config.deadlineMs).then((result) => {
    if (result !== 'deadline') return reasonOf(result);
    // The run outlives the answer: on serverless platforms only a waitUntil keeps it (and its claim) alive.
    kernel.keepAlive(run, waitUntil);
    return 'handler_timeout';
  });
}

type Settled = 'handled' | 'duplicate' | 'failed';

function settle(kernel: ProcessingKernel, event: PixEvent, claim: HeldClaim, outcome: AttemptOutcome): Settled | Promise<Settled> {
  if (!outcome.ok) {
    kernel.metrics.failed(outcome);
    return kernel.fail(event, claim, outcome, 1).then(() => 'failed');
  }
  const settled: Settled = outcome.duplicate ? 'duplicate' : 'handled';
  const marking = kernel.succeed(claim, outcome);
  return marking instanceof Promise ? marking.then(() => settled) : settled;
}

function reasonOf(settled: Settled): ProcessingReason | undefined {
  return settled === 'handled' ? undefined : settled === 'duplicate' ? 'duplicate' : 'handler_failed';
}

/** The run's result, or 'deadline' once `ms` passed (the run goes on). One promise: cheaper than Promise.race. */
export function raceDeadline<T>(run: Promise<T>, ms: number): Promise<T | 'deadline'> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms, 'deadline');
    void run.then((result) => {
      clearTimeout(timer);
      resolve(result);
    });
  });
}
