import type { Violation } from './violation.js';
import type { ApiPixEvent } from './api-pix-event-types.js';
import type { EventName, TransactionEventName, TransactionStatus, TransferEventName, TransferStatus } from './event-names.js';

/** Which of the gateway's payload shapes the delivery used. */
export type PayloadVariant = 'a' | 'b' | 'short';

/** How the event reached pixhook: a signed delivery, a reconciliation read, or a replay from quarantine/dead letters. */
export type EventSource = 'webhook' | 'reconcile' | 'replay';

export type JsonObject = { readonly [key: string]: unknown };

/**
 * A secondary field the reader could not use: left out of the typed view, kept in `payload`.
 * `found` describes the value (`"string"`, `"number"`, `"fraction"`, `"object"` …), never the value itself.
 */
export interface EventWarning {
  /** Dotted path in the payload, e.g. `transaction.pix.payerInfo.bank`. */
  path: string;
  found: string;
  message?: string;
}

/** Who paid, as `pix.payerInfo` reports it. */
export interface PixPayer {
  name?: string;
  document?: string;
  bank?: string;
  branch?: string;
  accountType?: string;
  accountNumber?: string;
}

/** One refund; a partial refund of a charge arrives as one `transaction_refunded` per refund. */
export interface PixRefund {
  /** The refund's own id (`id`, `refundId` or `rtrId`, the PIX return's id): what tells two refunds of one charge apart. */
  id?: string;
  amountInCents?: number;
  reason?: string;
  refundedAt?: string;
}

/** The charge's customer, as the merchant sent it when creating the charge. */
export interface PixCustomer {
  name?: string;
  email?: string;
  document?: string;
  documentType?: string;
  phone?: string;
}

/** A MED dispute (`transaction_infraction`) opened against a paid charge; the charge keeps status `paid`. */
export interface PixInfraction {
  id?: string;
  status?: string;
  reason?: string;
  amountInCents?: number;
  /** When the dispute was opened (`openedAt` or `createdAt`). */
  openedAt?: string;
}

/** A PIX IN charge as one event reports it. All amounts are integer cents. */
export interface Transaction {
  id: string;
  status: TransactionStatus;
  amountInCents: number;
  /** May be negative: a 1-cent charge with a 50-cent fee nets -49. */
  netAmountInCents?: number;
  feesInCents?: number;
  customer?: PixCustomer;
  endToEndId?: string;
  payer?: PixPayer;
  refund?: PixRefund;
  infraction?: PixInfraction;
}

/** A PIX OUT transfer as one event reports it. All amounts are integer cents. */
export interface Transfer {
  id: string;
  status: TransferStatus;
  amountInCents: number;
  netAmountInCents?: number;
  feesInCents?: number;
  pixKey?: string;
  endToEndId?: string;
  creditorAccount?: JsonObject;
}

export interface EventBase<N extends string> {
  /** The event name, e.g. `transaction_paid`. Narrows the event in handlers. */
  name: N;
  /** The payload shape the gateway used. */
  variant: PayloadVariant;
  /** `webhook` for a signed delivery (the default), `reconcile` or `replay` when pixhook re-created it. */
  source: EventSource;
  /** Variant B's top-level `id` (often the transaction's id, not unique per delivery). */
  deliveryId?: string;
  /** Variant B's `scope`: `postback` (the charge's postbackUrl) or `user` (a registered webhook). */
  scope?: string;
  /** Variant A's ISO 8601 `timestamp`. */
  timestamp?: string;
  /** Secondary fields left out of the typed view because their type was wrong; empty when all was readable. */
  warnings: readonly EventWarning[];
  /** The verified JSON payload exactly as parsed, every field included. */
  payload: JsonObject;
  /**
   * With a payment book: the violations the book found and the policy flags (the handlers run), or, on a
   * release, the ones that held the event. Absent when there were none, or without a book.
   */
  violations?: readonly Violation[];
}

export interface TransactionEvent<N extends TransactionEventName = TransactionEventName> extends EventBase<N> {
  kind: 'transaction';
  transaction: Transaction;
}

export interface TransferEvent<N extends TransferEventName = TransferEventName> extends EventBase<N> {
  kind: 'transfer';
  transfer: Transfer;
}

/** Every known event, discriminated by `name` (and by `kind`). */
export type PixEvent =
  | { [N in TransactionEventName]: TransactionEvent<N> }[TransactionEventName]
  | { [N in TransferEventName]: TransferEvent<N> }[TransferEventName]
  | ApiPixEvent;

/** The event type for one name, or for a union of names. */
export type PixEventOf<N extends EventName> = Extract<PixEvent, { name: N }>;

/** A verified delivery whose event name this version does not know. It never reaches typed handlers. */
export interface UnknownEvent {
  kind: 'unknown';
  name: string;
  source: EventSource;
  deliveryId?: string;
  payload: JsonObject;
}
