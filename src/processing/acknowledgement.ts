import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { PixEvent } from '../events/event-types.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { ProcessingReason } from '../shared/reasons.js';
import type { AttemptOutcome, FailedAttempt } from './run-attempt.js';

/**
 * A claimed event on its way through a mode: what its handlers' run and the end of its claim need.
 * One per delivery (`createProcessing` makes it once the claim is taken).
 */
export interface ClaimedRun extends HeldClaim {
  readonly event: PixEvent;
  /** The verified body as received (durable mode queues it); the payload as JSON when none was given. */
  readonly body: string;
  /** The delivery's trace context, so the handler span links to it even when it runs later. */
  readonly link: Record<string, string> | undefined;
  /** The delivery's journal entry (with a `journal`), carried into a durable job. */
  readonly journal: { readonly id: string } | undefined;
  /** Private diagnosis for logs, set by a mode that refuses the event (never sent to the gateway). */
  hint: string | undefined;
  /** Runs the handlers once, bounded by `handlerTimeoutMs` and the claim. Never rejects. */
  attempt(attempt: number): MaybePromise<AttemptOutcome>;
  /** Starts renewing the claim until the run settles it. */
  hold(): void;
  /**
   * The run succeeded (or found the event applied): mark the key done, count it. Never rejects; a failure to mark
   * is logged. `false`: the commit that held the handlers' effects with the mark failed (the Postgres inbox), so
   * nothing was applied: the claim is still held, for the mode to run the handlers again or give it back.
   */
  succeed(outcome: AttemptOutcome): MaybePromise<boolean>;
  /** Why the last `succeed` answered `false` (the store's error); undefined otherwise. */
  readonly notCommitted: unknown;
  /**
   * Takes the resource's order lease again, waiting up to `orderWaitMs` in arrival order, and keeps it: a commit that
   * failed gave it back, and the run's retry must not overlap another event of its charge. False when still busy.
   */
  reenter(): Promise<boolean>;
  /** Marks the key done without a run (durable: queued is as good as handled for the sender). Never rejects. */
  markQueued(): MaybePromise<void>;
  /** A run failed and another follows (background retries): count it, log it. */
  retrying(outcome: FailedAttempt, attempt: number): void;
  /** The run failed for good: count it, give the claim back, log, tell `onError`. Never rejects. */
  fail(outcome: FailedAttempt, attempt: number): Promise<void>;
  /** Gives the claim back without a run (never rejects). */
  release(): Promise<void>;
  /** Work after the answer: tracked for `drain()` and handed to the platform's `waitUntil`. */
  keepAlive(work: Promise<unknown>): void;
}

/**
 * One acknowledgement mode: what happens between the claim and the answer. Inline runs the
 * handlers, then answers; background answers, then runs them in this process; durable queues the
 * body, then answers. The reason to answer, or `undefined` for 200; never rejects.
 */
export interface Acknowledgement {
  acknowledge(run: ClaimedRun): MaybePromise<ProcessingReason | undefined>;
  /** Events accepted and not yet settled by this mode's own queue (0 where it has none). */
  readonly size: number;
  /** Resolves once this mode's own queue is empty. */
  idle(): Promise<void>;
}
