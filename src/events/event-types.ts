import type {
  PixEventName,
  TransactionEventName,
  TransactionStatus,
  TransferEventName,
  TransferStatus,
} from './event-names.js';

/** Which path brought the event: a webhook delivery, the reconciler's read of the API, or a replay. */
export type EventSource = 'webhook' | 'reconcile' | 'replay';

/** Which of the gateway's payload shapes the delivery used. */
export type PayloadVariant = 'a' | 'b' | 'short';

export type JsonObject = { readonly [key: string]: unknown };

/** Who paid, as Variant B's `transaction.pix.payerInfo` reports it. */
export interface PixPayer {
  name?: string;
  document?: string;
  bank?: string;
  branch?: string;
  accountType?: string;
  accountNumber?: string;
}

export interface PixRefund {
  amountInCents?: number;
  reason?: string;
  refundedAt?: string;
}

export interface PixCustomer {
  name?: string;
  email?: string;
  document?: string;
}

/** A PIX IN charge as one event reports it. All amounts are integer cents. */
export interface Transaction {
  id: string;
  status: TransactionStatus;
  amountInCents: number;
  netAmountInCents?: number;
  customer?: PixCustomer;
  endToEndId?: string;
  payer?: PixPayer;
  refund?: PixRefund;
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

interface EventBase<N extends string> {
  /** The event name, e.g. `transaction_paid`. Narrows the event in handlers. */
  name: N;
  /** The payload shape the gateway used. */
  variant: PayloadVariant;
  /** Variant B's top-level `id` (often the transaction's id, not unique per delivery). */
  deliveryId?: string;
  /** Variant B's `scope`: `postback` (the charge's postbackUrl) or `user` (a registered webhook). */
  scope?: string;
  /** Variant A's ISO 8601 `timestamp`. */
  timestamp?: string;
  /** The verified JSON payload exactly as parsed. */
  payload: JsonObject;
  /** Which path brought the event. */
  source?: EventSource;
  /** Fields of an unexpected type, left out of the typed view (they stay in `payload`). */
  warnings?: readonly EventWarning[];
}

/** A secondary field that was not what the shape expects: left out of the typed event, kept in `payload`. */
export interface EventWarning {
  path: string;
  found: string;
  message?: string;
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
  | { [N in TransferEventName]: TransferEvent<N> }[TransferEventName];

/** The event type for one name, or for a union of names. */
export type PixEventOf<N extends PixEventName> = Extract<PixEvent, { name: N }>;

/** A verified delivery whose event name this version does not know. It never reaches typed handlers. */
export interface UnknownEvent {
  kind: 'unknown';
  source?: EventSource;
  name: string;
  deliveryId?: string;
  payload: JsonObject;
}
