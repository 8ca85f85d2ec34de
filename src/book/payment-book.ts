// The payment book's contract: per charge and transfer, what was expected and what was applied, so an
// event that would move money wrongly (a wrong amount, payer or order) is held or flagged before any
// handler runs. Every backend implements this one interface, so the decisions are the same everywhere.
import type { PixEvent } from '../events/event-types.js';
import type { EventName, TransactionStatus, TransferStatus } from '../events/event-names.js';
import type { ResolvedPolicy } from './payment-policy.js';
import type { Violation, ViolationReason } from '../events/violation.js';

import type { BookChannel } from '../events/book-channel.js';

export type { BookChannel };

/** What `book.expect` takes: the charge as the merchant created it. */
export interface ExpectedCharge {
  id: string;
  /** Integer cents the payer must pay. */
  amountInCents: number;
  /** The payer's CPF or CNPJ, with or without punctuation; compared by its digits. */
  payerDocument?: string;
  /** After this moment a payment is `paid_after_expiry`. */
  expiresAt?: Date | string | number;
}

/** An expectation as the book keeps it: the document as digits only, the expiry as ISO 8601. */
export interface Expectation {
  amountInCents: number;
  payerDocument?: string;
  expiresAt?: string;
}

/** What pixhook did with one event (or with a held event later). */
export type TimelineOutcome = 'apply' | 'held' | 'duplicate_hold' | 'released' | 'release_failed' | 'dismissed';

/** One event in a resource's timeline. */
export interface TimelineEntry {
  name: EventName;
  status: TransactionStatus | TransferStatus;
  amountInCents: number;
  channel: BookChannel;
  deliveryId?: string;
  /** When pixhook recorded it, ISO 8601. */
  at: string;
  outcome: TimelineOutcome;
  /** The violations found (flagged ones on `apply`, the held ones on `held`); empty when none. */
  reasons: ViolationReason[];
  heldId?: string;
  /** On `released` and `dismissed`: the note the person gave. */
  note?: string;
  /** On `released` and `dismissed`: who decided (as given to `release`/`dismiss`, e.g. a user name). */
  by?: string;
}

/** A MED dispute opened by `transaction_infraction`. The charge keeps its status. */
export interface Dispute {
  resourceId: string;
  /** The infraction's id, when the gateway gave one. */
  id?: string;
  status?: string;
  reason?: string;
  amountInCents?: number;
  /** ISO 8601: the infraction's `openedAt`, else when pixhook first saw it. */
  openedAt: string;
  /** False once a later event gives it a closing status (`closed`, `resolved`, `rejected`, `accepted`, `canceled`). */
  open: boolean;
}

/** A dispute as `book.disputes()` lists it, with its age at the time of the call. */
export interface DisputeWithAge extends Dispute {
  ageMs: number;
}

/** One charge or transfer as the book knows it. */
export interface BookResource {
  id: string;
  kind: 'transaction' | 'transfer';
  /**
   * The latest status pixhook applied (handlers ran, or a held event was released); it only moves
   * forward. Before anything was applied (only an expectation, or only held events): `pending` for a
   * charge, `queued` for a transfer.
   */
  status: TransactionStatus | TransferStatus;
  /** The amount of the latest applied event; before that, the expected amount, else the first event's. */
  amountInCents: number;
  expected?: Expectation;
  /** Oldest first, bounded per resource (the oldest entries drop first). */
  timeline: TimelineEntry[];
  disputes: Dispute[];
}

export type HeldState = 'held' | 'releasing' | 'released' | 'dismissed';

/** An event kept by a `hold`: its handlers have not run. Never dropped while `held` or `releasing`. */
export interface HeldEvent {
  heldId: string;
  resourceId: string;
  kind: 'transaction' | 'transfer';
  dedupeKey: string;
  /** The event as it arrived, so a release runs its handlers on exactly what was held. */
  event: PixEvent;
  violations: Violation[];
  channel: BookChannel;
  deliveryId?: string;
  heldAt: string;
  state: HeldState;
  /** The note given to `release` or `dismiss`. */
  note?: string;
  /** Who released or dismissed it, as given. */
  by?: string;
  /** When it was released or dismissed, ISO 8601. */
  closedAt?: string;
}

export type DismissResult = { ok: true } | { ok: false; reason: 'not_found' | 'already_released' | 'dismissed' };

/**
 * What `receiver.release(heldId)` answers: the handlers ran once, or why they did not (`handler_failed`: still
 * held; `already_applied`: the book applied this fact already, through another copy of it;
 * `refunded_since_held`: a payment whose charge was refunded, or its money returned, since it was held — still
 * held, and it can be dismissed). A release whose lease was lost while its handlers ran (another release took
 * it) answers `already_released`, never `ok`.
 */
export type ReleaseResult =
  | { ok: true }
  | { ok: false; reason: 'not_found' | 'already_released' | 'dismissed' | 'already_applied' | 'refunded_since_held' | 'handler_failed' };

/** `claimRelease`: the held event, now `releasing` and claimed by this caller alone; or why not. */
export type ReleaseClaim =
  | {
      ok: true;
      held: HeldEvent;
      /** How long the claim lasts unless renewed (`renewRelease`); absent when it never lapses (the memory book). */
      leaseMs?: number;
    }
  | { ok: false; reason: 'not_found' | 'already_released' | 'dismissed' | 'already_applied' | 'refunded_since_held' };

/** Who decided a release or a dismissal, and why: kept on the held event and its timeline entry. */
export interface ReleaseTrail {
  note?: string;
  by?: string;
}

/** How the pipeline describes one delivery to `record`. */
export interface RecordContext {
  /** The event's dedupe key: a retry (or the copy on the other channel) of a held event carries the same one. */
  dedupeKey: string;
  /** Default: from the event (`reconcile`, `replay`, else the delivery's `scope`: `user`, otherwise `postback`). */
  channel?: BookChannel;
  /** Default: the event's `deliveryId`. */
  deliveryId?: string;
  /** Epoch milliseconds of receipt. Default: the book's clock. */
  at?: number;
  /** The resolved policy (`checkPolicy`). Default: the documented defaults. */
  policy?: ResolvedPolicy;
  /** The gateway's answer under `confirm`: false when it contradicted the event (a `not_confirmed`). */
  confirmed?: boolean;
}

/**
 * What `record` decided: `apply` runs the handlers (with any flagged violations); `held` and `duplicate_hold`
 * do not; `duplicate`: the book applied this payment or refund already (whatever the dedupe store remembers).
 */
export type RecordResult =
  | { outcome: 'apply'; violations: Violation[] }
  | { outcome: 'duplicate'; violations: Violation[] }
  | { outcome: 'held' | 'duplicate_hold'; violations: Violation[]; heldId: string };

/** A retry of an event still held: the same hold, never a second one. */
export interface DuplicateHold {
  outcome: 'duplicate_hold';
  violations: Violation[];
  heldId: string;
}

/** Every method returns a promise, on every backend. */
export interface PaymentBook {
  /** The charge or transfer with this id (a charge first when both exist), or undefined. */
  get(id: string): Promise<BookResource | undefined>;
  /** Records what a charge must look like when paid; from then on the book is "using expectations". */
  expect(charge: ExpectedCharge): Promise<void>;
  /**
   * Open held events (`held` or `releasing`), oldest first; `{ state: 'closed' }`: the released and dismissed
   * ones the book still remembers, with their note and who decided.
   */
  held(filter?: { state?: 'open' | 'closed' }): Promise<HeldEvent[]>;
  /** One held event, open or closed, or undefined when the book does not know (or no longer remembers) it. */
  heldEvent(heldId: string): Promise<HeldEvent | undefined>;
  /** Closes a held event without running its handlers; `by` names who decided. */
  dismiss(heldId: string, note: string, options?: { by?: string }): Promise<DismissResult>;
  /** Disputes, with their age; `{ open: true }` for open ones only, `{ open: false }` for closed ones. */
  disputes(filter?: { open?: boolean }): Promise<DisputeWithAge[]>;
  /**
   * The pipeline's step before any named handler: atomically for the event's resource, checks the
   * policy against the book, appends the timeline entry, moves status and amount forward on `apply`,
   * opens or updates a dispute on `transaction_infraction`, and keeps the event when a violation holds it.
   */
  record(event: PixEvent, context: RecordContext): Promise<RecordResult>;
  /**
   * For a delivery the dedupe store already answered `done`: when its dedupe key has an open held event
   * on its resource, records the retry (a `duplicate_hold` entry) and returns it, so the sender hears
   * `held` again; otherwise undefined, and nothing changes (a plain duplicate).
   */
  retryOfHeld(event: PixEvent, context: RecordContext): Promise<DuplicateHold | undefined>;
  /** Marks a held event `releasing` for this caller alone: a release runs exactly once. */
  claimRelease(heldId: string): Promise<ReleaseClaim>;
  /**
   * Ends a claimed release: `ok` marks it `released` and applies it to the book (forward only); not `ok`
   * (a handler failed) puts it back to `held`. False when the event was not `releasing`.
   */
  finishRelease(heldId: string, ok: boolean, trail?: ReleaseTrail): Promise<boolean>;
  /** Extends this caller's release claim while its handlers run; false when the claim is not this caller's any more. */
  renewRelease(heldId: string): Promise<boolean>;
}
