// What a payment-book backend (src/redis, src/postgres) implements and may use: the `PaymentBook`
// contract, and the pure steps every backend runs so that the money decisions are the same everywhere.
// Backends import the book only through this file (eslint.config.js); anything else in book/ may change.

// The contract a backend implements.
export type { DismissResult, DuplicateHold, HeldEvent, PaymentBook, RecordContext, RecordResult, ReleaseClaim } from './payment-book.js';

// Argument checks and answers shaped like the memory book's.
export {
  asDuplicateHold,
  checkDedupeKey,
  checkNote,
  checkTrail,
  disputesWithAge,
  recordAt,
  recordInput,
  wantsClosed,
} from './book-arguments.js';
export { checkExpectation } from './check-expectation.js';

// The per-resource update and the policy: a backend stores `ResourceState`, never decides by itself.
export {
  applyStep,
  dismissStep,
  recordStep,
  releaseRefusal,
  releaseStep,
  resourceKey,
  toBookResource,
  type RecordInput,
  type ResourceState,
} from './book-state.js';
export { statesPayment } from './evaluate-policy.js';
export { defaultPolicy } from './payment-policy.js';
export { policyReasons } from '../events/violation.js';
export { channelOf } from '../events/book-channel.js';

// The held-event lease (release claims) and the dedupe claim joined with the book's record.
export { claimedHeld, closedReason, currentHeld, ownsRelease, renewedHeld, type StoredHeld } from './held-lease.js';
export type {
  Committed,
  DoneMark,
  JoinedClaim,
  JoinedClaimResult,
  JoinedLease,
  Judged,
  PaymentBookBackend,
  PendingApply,
} from './joined-claim.js';
