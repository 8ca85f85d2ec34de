import type { ClaimResult, DedupeStore } from '../dedupe/dedupe-store.js';
import type { PixEvent } from '../events/event-types.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { DuplicateHold, PaymentBook, RecordContext, RecordResult } from './payment-book.js';

// Internal (not exported from the package): a backend's book that can take the dedupe claim and its own
// update in one step with a given store (the Redis book with a Redis store on the same client: one script).

/**
 * The claim's answer; when claimed, the resource order lease's fence and what the book recorded; when done, the
 * retry of a held event if it is one; `busy` when the lease is another's or a waiter is ahead (nothing claimed).
 */
export type JoinedClaimResult =
  | { claim: 'claimed'; fence: string; recorded: Judged }
  | { claim: 'done'; retry?: DuplicateHold }
  | { claim: Exclude<ClaimResult, 'claimed' | 'done'> }
  | { claim: 'busy' };

/**
 * The resource order lease a joined claim takes in the same step: the processing's store's own lease of
 * `resource` for `ttlMs`; with `ticketTtlMs`, a refused asker queues (or renews) its ticket in arrival order.
 */
export interface JoinedLease {
  readonly resource: string;
  readonly ttlMs: number;
  readonly ticketTtlMs: number | undefined;
}

/**
 * The order lease, the claim and the book's record as one step: one ask in the resource's turn (the processing
 * asks again while `busy`, up to `orderWaitMs`). A `done` key and another's claim answer before anything queues.
 */
export type JoinedClaim = (
  key: string,
  owner: string,
  ttlMs: number,
  event: PixEvent,
  context: RecordContext,
  lease: JoinedLease,
) => Promise<JoinedClaimResult>;

/** A run's done mark, and the resource-order lease it holds: what a commit may take in the book's own step. */
export interface DoneMark {
  /** The processing's store as given (not its guard): a backend recognises its own (Redis: the same client). */
  readonly store: DedupeStore;
  readonly key: string;
  readonly owner: string;
  readonly ttlMs: number;
  readonly lease: { readonly resource: string; readonly fence: string } | undefined;
}

/**
 * What a commit did beside the book: `marked`, when it set the done mark itself (false: the claim is another
 * run's, so the mark was left to it); `leaseGiven`, when it gave the lease back. Absent: the caller does them.
 */
export interface Committed {
  marked?: boolean;
  leaseGiven?: boolean;
}

/**
 * An `apply` judged and not written: the run calls it once its handlers succeeded, under the resource's
 * order lease, before (or with) the done mark. A run that fails never calls it, so the book stays as it was.
 */
export type PendingApply = (mark: DoneMark) => MaybePromise<Committed>;

/** What `judge` answers: `record`'s result; on `apply`, the commit still to make (absent: written already). */
export type Judged = RecordResult & { commit?: PendingApply };

/**
 * A payment book as a backend (src/redis, src/postgres) implements it: the `PaymentBook` contract, and
 * optionally the claim joined with its record. Any `PaymentBook` is one (the method is optional).
 */
export interface PaymentBookBackend extends PaymentBook {
  /**
   * `record` for the pipeline: judges the event and writes a hold when decided, but an `apply` only when the
   * handlers succeeded (its `commit`). A book without it applies when it records (the handlers' failure then
   * leaves the fact applied: every book pixhook ships has it).
   */
  judge?(event: PixEvent, context: RecordContext): MaybePromise<Judged>;
  /**
   * The resource order lease and dedupe claim of `store` and this book's record as one step, or undefined when
   * they cannot share one (then: claim and lease, then record). Processing asks once, when made, with its store.
   */
  joinClaim?(store: DedupeStore): JoinedClaim | undefined;
}

/** The book's judgement of `event`: `judge` when the book has it, else its `record` (applied at once). */
export function judgeIn(book: PaymentBookBackend, event: PixEvent, context: RecordContext): MaybePromise<Judged> {
  return typeof book.judge === 'function' ? book.judge(event, context) : book.record(event, context);
}

/** The joined claim of `book` with `store`, or undefined when they cannot share one step (then: claim, then record). */
export function joinedClaimOf(store: DedupeStore, book: PaymentBookBackend | undefined): JoinedClaim | undefined {
  return typeof book?.joinClaim === 'function' ? book.joinClaim(store) : undefined;
}
