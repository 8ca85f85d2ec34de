import type { ClaimResult, DedupeStore } from '../dedupe/dedupe-store.js';
import type { PixEvent } from '../events/event-types.js';
import type { DuplicateHold, PaymentBook, RecordContext, RecordResult } from './payment-book.js';

// Internal (not exported from the package): a backend's book that can take the dedupe claim and its own
// update in one step with a given store (the Redis book with a Redis store on the same client: one script).

/** The claim's answer; when claimed, what the book recorded; when done, the retry of a held event if it is one. */
export type JoinedClaimResult =
  | { claim: 'claimed'; recorded: RecordResult }
  | { claim: 'done'; retry?: DuplicateHold }
  | { claim: Exclude<ClaimResult, 'claimed' | 'done'> };

export type JoinedClaim = (
  key: string,
  owner: string,
  ttlMs: number,
  event: PixEvent,
  context: RecordContext,
) => Promise<JoinedClaimResult>;

/**
 * A payment book as a backend (src/redis, src/postgres) implements it: the `PaymentBook` contract, and
 * optionally the claim joined with its record. Any `PaymentBook` is one (the method is optional).
 */
export interface PaymentBookBackend extends PaymentBook {
  /**
   * The dedupe claim of `store` and this book's record as one step, or undefined when they cannot share
   * one (then: claim, then record). Processing asks once, when made, with its store.
   */
  joinClaim?(store: DedupeStore): JoinedClaim | undefined;
}

/** The joined claim of `book` with `store`, or undefined when they cannot share one step (then: claim, then record). */
export function joinedClaimOf(store: DedupeStore, book: PaymentBookBackend | undefined): JoinedClaim | undefined {
  return typeof book?.joinClaim === 'function' ? book.joinClaim(store) : undefined;
}
