import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import type { ProcessingReason } from '../shared/reasons.js';
import type { Acknowledgement, ClaimedRun } from './acknowledgement.js';
import type { ResolvedProcessingOptions } from './processing-options.js';
import type { AttemptOutcome } from './run-attempt.js';

/**
 * Inline: run the handlers, then answer. Past `deadlineMs` the answer is 503 `handler_timeout` while
 * the run goes on (up to `handlerTimeoutMs`) and settles the claim itself, so the sender's retry is
 * answered `in_flight` until then, and `duplicate` after a success. `createProcessing` counts an
 * answer still pending as in flight, so `drain()` waits for the run before its answer too.
 */
export function createInlineMode(config: Pick<ResolvedProcessingOptions, 'deadlineMs'>): Acknowledgement {
  return {
    acknowledge(run) {
      const attempt = run.attempt(1);
      if (!isPromise(attempt)) return settleInline(attempt, run);
      // The run outlives this turn: renew its claim until it settles.
      run.hold();
      const settled = attempt.then((outcome) => settleInline(outcome, run));
      return raceDeadline(settled, config.deadlineMs).then((result) => {
        if (result !== 'deadline') return result;
        // The run outlives the answer: on serverless platforms only a waitUntil keeps it (and its claim) alive.
        run.keepAlive(settled);
        return 'handler_timeout';
      });
    },
    size: 0,
    idle: () => Promise.resolve(),
  };
}

const failedReason = (): ProcessingReason => 'handler_failed';
const uncommittedReason = (): ProcessingReason => 'store_unavailable';
/** A success whose commit rolled its effects back: nothing applied; the claim is given back for the sender's retry. */
const uncommitted = (run: ClaimedRun): Promise<ProcessingReason> => run.release().then(uncommittedReason);
const handledReason = (applied: boolean, run: ClaimedRun): MaybePromise<ProcessingReason | undefined> =>
  applied ? undefined : uncommitted(run);
const duplicateReason = (applied: boolean, run: ClaimedRun): MaybePromise<ProcessingReason | undefined> =>
  applied ? 'duplicate' : uncommitted(run);

/**
 * How an inline run ends: its claim marked done, or given back with `onError` told; then the answer's reason.
 * A success whose commit rolled its effects back (the Postgres inbox's transaction) answers `store_unavailable`
 * with the claim given back: nothing was applied, and the sender's retry runs the handlers, as that code promises.
 */
function settleInline(outcome: AttemptOutcome, run: ClaimedRun): MaybePromise<ProcessingReason | undefined> {
  if (!outcome.ok) return run.fail(outcome, 1).then(failedReason);
  return andThen(run.succeed(outcome), outcome.duplicate ? duplicateReason : handledReason, undefined, run);
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
