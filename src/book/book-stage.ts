import type { PixEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import type { ProcessingReason } from '../shared/reasons.js';
import { withTimeout } from '../shared/with-timeout.js';
import { confirmWithGateway, type ConfirmOutcome, type ResolvedConfirm } from './confirm-with-gateway.js';
import { judgeIn, type JoinedClaim, type JoinedClaimResult, type JoinedLease, type Judged, type PendingApply } from './joined-claim.js';
import type { PaymentBook } from './payment-book.js';
import type { ResolvedPolicy } from './payment-policy.js';
import type { Violation } from '../events/violation.js';

/** A claimed event as the book stage sees it (processing's run). */
interface BookRun {
  event: PixEvent;
  readonly key: string;
  readonly owner: string;
  /** Starts renewing the claim until the run settles it. */
  hold(): void;
  /** Gives the claim back (never rejects). */
  release(): Promise<void>;
  /** Marks the key done for a held event (never rejects). */
  markHeld(): MaybePromise<void>;
  /** The book's apply, written when the handlers succeed (with the done mark), never when they fail. */
  pending: PendingApply | undefined;
}

/** The stage's answer: processing's `AcceptResult`. */
interface BookAnswer {
  reason?: ProcessingReason;
  key?: string;
  hint?: string;
}

type BookViolationHandler = (violation: Violation, event: PixEvent) => void | Promise<void>;

interface BookStageInput<R extends BookRun> {
  book: PaymentBook;
  policy: ResolvedPolicy;
  confirm: ResolvedConfirm | undefined;
  claimTtlMs: number;
  storeTimeoutMs: number;
  log: Logger;
  /** Work after the answer (an async `onViolation`): tracked for `drain()`. */
  keepAlive(work: Promise<unknown>): void;
  /** What an applied event goes on to: the mode's dispatch and acknowledgement. */
  dispatch(run: R): MaybePromise<BookAnswer>;
  /** Gives back the run's resource-order lease when the joined claim was not taken (the claim's end does it otherwise). */
  leave(run: R): void;
  /** The joined claim asked in the resource's turn (processing's order: the wait, the lease kept on the run once taken). */
  inTurn(run: R, ask: (lease: JoinedLease) => Promise<JoinedAnswer | undefined>): Promise<JoinedAnswer | undefined>;
}

/** A joined claim's answer once the resource's turn came (busy is asked again). */
type JoinedAnswer = Exclude<JoinedClaimResult, { claim: 'busy' }>;

interface BookStage<R extends BookRun> {
  readonly violationHandlers: BookViolationHandler[];
  recordInBook(book: PaymentBook, run: R): MaybePromise<BookAnswer>;
  claimAndRecord(join: JoinedClaim, run: R): Promise<BookAnswer>;
  afterRecord(recorded: Judged, run: R): MaybePromise<BookAnswer>;
  retryOfHeld(book: PaymentBook, run: R): Promise<BookAnswer>;
  tellViolations(violations: readonly Violation[], event: PixEvent): void;
}

/**
 * The payment book's step, between the dedupe claim and the handlers: a hold ends the delivery here,
 * a flag rides on the event to the handlers, and every violation is told to `onViolation`.
 */
export function createBookStage<R extends BookRun>(input: BookStageInput<R>): BookStage<R> {
  const { policy, confirm, log, keepAlive } = input;
  const config = input;
  const violationHandlers: BookViolationHandler[] = [];

  /** The book's judgement; synchronous when the book answers in this turn (the memory book, nothing pending), like the run. */
  function recordInBook(book: PaymentBook, run: R): MaybePromise<BookAnswer> {
    if (confirm !== undefined) return confirmAndRecord(book, confirm, run);
    let judged: MaybePromise<Judged>;
    try {
      judged = judgeIn(book, run.event, { dedupeKey: run.key, policy });
    } catch (error) {
      return bookFailed(error, run);
    }
    if (!isPromise(judged)) return afterRecord(judged, run);
    run.hold();
    return judged.then(
      (recorded) => afterRecord(recorded, run),
      (error: unknown) => bookFailed(error, run),
    );
  }

  /** `confirm`: the gateway's record first; unreadable, the claim is given back so the sender's retry runs it. */
  async function confirmAndRecord(book: PaymentBook, confirming: ResolvedConfirm, run: R): Promise<BookAnswer> {
    run.hold();
    const gateway: ConfirmOutcome = await confirmWithGateway(confirming, run.event, Date.now());
    if (!gateway.ok) {
      await run.release();
      return { reason: 'gateway_unavailable', key: run.key, hint: gateway.hint };
    }
    let recorded: Judged;
    try {
      recorded = await judgeIn(book, run.event, { dedupeKey: run.key, policy, confirmed: gateway.confirmed });
    } catch (error) {
      return bookFailed(error, run);
    }
    return afterRecord(recorded, run);
  }

  /** Fail closed, like the dedupe store: the sender retries and the book judges it then. */
  async function bookFailed(error: unknown, run: R): Promise<BookAnswer> {
    await run.release();
    return { reason: 'store_unavailable', key: run.key, hint: 'payment book: ' + describeError(error) };
  }

  /**
   * The order lease, the claim and the book's update in one step, asked again while the resource is busy; its
   * answers mean what `claimed`, the order and `recordInBook` make of them. A key done or in flight answers from
   * that one step, before it queues; `resource_busy` past `orderWaitMs` (nothing was claimed).
   */
  async function claimAndRecord(join: JoinedClaim, run: R): Promise<BookAnswer> {
    const context = { dedupeKey: run.key, policy };
    let joinedResult: JoinedAnswer | undefined;
    try {
      joinedResult = await input.inTurn(run, async (lease) => {
        const claiming = join(run.key, run.owner, config.claimTtlMs, run.event, context, lease);
        const answer = await withTimeout(claiming, config.storeTimeoutMs, 'dedupe claim and payment book');
        return answer.claim === 'busy' ? undefined : answer;
      });
    } catch (error) {
      input.leave(run);
      return { reason: 'store_unavailable', key: run.key, hint: describeError(error) };
    }
    if (joinedResult === undefined) return { reason: 'resource_busy', key: run.key };
    if (joinedResult.claim === 'done') return { reason: joinedResult.retry === undefined ? 'duplicate' : 'held', key: run.key };
    if (joinedResult.claim !== 'claimed') return { reason: joinedResult.claim, key: run.key };
    run.hold();
    return afterRecord(joinedResult.recorded, run);
  }

  /** A hold ends here (the key is done; the book answers its retries `held`); a flag rides on the event to the handlers. */
  function afterRecord(recorded: Judged, run: R): MaybePromise<BookAnswer> {
    if (recorded.violations.length > 0) {
      run.event = { ...run.event, violations: recorded.violations };
      tellViolations(recorded.violations, run.event);
    }
    // A fact the book applied already: never run again, whatever the store forgot; the key is done again.
    if (recorded.outcome === 'duplicate') return andThen(run.markHeld(), () => ({ reason: 'duplicate' as const, key: run.key }));
    if (recorded.outcome !== 'apply') return andThen(run.markHeld(), () => ({ reason: 'held' as const, key: run.key }));
    // Applied only when the handlers succeed: the run commits it with its done mark (claimed-run.ts).
    run.pending = recorded.commit;
    return input.dispatch(run);
  }

  /** The store says done; the book says `held` while the event waits for a person (its retries and its other-channel copy). */
  async function retryOfHeld(book: PaymentBook, run: R): Promise<BookAnswer> {
    try {
      if ((await book.retryOfHeld(run.event, { dedupeKey: run.key, policy })) !== undefined) return { reason: 'held', key: run.key };
    } catch (error) {
      return { reason: 'duplicate', key: run.key, hint: 'payment book: ' + describeError(error) };
    }
    return { reason: 'duplicate', key: run.key };
  }

  /** Every `onViolation` handler hears each violation; their failures are logged, never the delivery's. */
  function tellViolations(violations: readonly Violation[], event: PixEvent): void {
    for (const violation of violations) {
      for (const handler of violationHandlers) {
        try {
          const told = handler(violation, event);
          if (told !== undefined && typeof told.then === 'function') keepAlive(Promise.resolve(told).catch(violationHandlerFailed));
        } catch (error) {
          violationHandlerFailed(error);
        }
      }
    }
  }

  function violationHandlerFailed(error: unknown): void {
    log.error({ error: describeError(error) }, 'pixhook: an onViolation handler failed');
  }

  return { violationHandlers, recordInBook, claimAndRecord, afterRecord, retryOfHeld, tellViolations };
}
