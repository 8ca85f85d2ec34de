import type { Violation } from './violation.js';
import type {
  ApiPixEventName,
  EventName,
  TransactionEventName,
  TransactionStatus,
  TransferEventName,
  TransferStatus,
} from './event-names.js';

/** Which of the gateway's payload shapes the delivery used. */
export type PayloadVariant = 'a' | 'b' | 'short';

/**
 * Who sent the event: the gateway of \`pix-service-interface.md\`, a bank speaking the Central Bank's API Pix,
 * or one of the PSPs \`pixhook/psp\` receives. \`source\` says how it arrived; \`provider\` says from whom.
 */
export type Provider = 'gateway' | 'api-pix' | 'mercado-pago' | 'asaas' | 'pagbank' | 'woovi' | 'pagarme';

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

interface EventBase<N extends string> {
  /** The event name, e.g. `transaction_paid`. Narrows the event in handlers. */
  name: N;
  /** The payload shape the gateway used. */
  variant: PayloadVariant;
  /** `webhook` for a signed delivery (the default), `reconcile` or `replay` when pixhook re-created it. */
  source: EventSource;
  /** Who sent it: `gateway`, `api-pix`, or the PSP (`mercado-pago`, `asaas`, `pagbank`, `woovi`, `pagarme`). */
  provider: Provider;
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
  /** The sender's body as it was read: the same object as `payload`, under the name PSP webhooks' docs use. */
  raw: JsonObject;
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

/**
 * A charge event read from a PSP's own body (`pixhook/psp`): the same names and `transaction` fields as the
 * gateway's, so one handler serves every PSP; `provider` names the PSP and `payload` keeps what it was read
 * from (the webhook's body, or the record fetched from the PSP's API where the body is only a hint).
 */
export interface PspTransactionEvent<N extends TransactionEventName = TransactionEventName> extends Omit<EventBase<N>, 'variant'> {
  kind: 'transaction';
  /** Always `psp`: the body is the PSP's own shape, not one of the gateway's. */
  variant: 'psp';
  transaction: Transaction;
}

/** Every known event, discriminated by `name` (and by `kind`). */
export type PixEvent =
  | { [N in TransactionEventName]: TransactionEvent<N> }[TransactionEventName]
  | { [N in TransactionEventName]: PspTransactionEvent<N> }[TransactionEventName]
  | { [N in TransferEventName]: TransferEvent<N> }[TransferEventName]
  | ApiPixEvent;

/** The event type for one name, or for a union of names. */
export type PixEventOf<N extends EventName> = Extract<PixEvent, { name: N }>;

/** A verified delivery whose event name this version does not know. It never reaches typed handlers. */
export interface UnknownEvent {
  kind: 'unknown';
  name: string;
  source: EventSource;
  provider: Provider;
  deliveryId?: string;
  payload: JsonObject;
  /** The same object as `payload`. */
  raw: JsonObject;
}

// The standard API Pix's events: each carries a `transaction` view so the book, the journal and the console read it as a charge.
/** `componentesValor`, each in integer cents: valor = original + saque + troco + multa + juros − abatimento − desconto. */
export interface PixValueComponents {
  original?: number;
  withdrawal?: number;
  change?: number;
  interest?: number;
  fine?: number;
  rebate?: number;
  discount?: number;
}

/** One received Pix (`Pix` in the standard). Amounts are integer cents, read exactly from the decimal string. */
export interface ReceivedPix {
  /** `endToEndId`: the payment's identity across the whole PIX system. */
  endToEndId: string;
  /** The charge (`cob`/`cobv`) the Pix paid; absent for a static QR code or a transfer to the key. */
  txid?: string;
  amountInCents: number;
  /** `chave`: the merchant's key the Pix was sent to. */
  key?: string;
  /** `horario`, as the PSP wrote it (ISO 8601). */
  paidAt: string;
  /** `infoPagador`: the payer's free text (untrusted; at most 140 characters by the standard). */
  payerInfo?: string;
  components?: PixValueComponents;
}

/** `processing` (EM_PROCESSAMENTO), `returned` (DEVOLVIDO), `not_returned` (NAO_REALIZADO). */
export type PixRefundStatus = 'processing' | 'returned' | 'not_returned';

/** One devolução of a received Pix, at one status. */
export interface PixRefundUpdate {
  /** The refund's id, chosen by the merchant when it asked for it (unique per original Pix). */
  id: string;
  /** The PIX return's id (`D…`). */
  rtrId: string;
  amountInCents: number;
  status: PixRefundStatus;
  /** The original Pix's endToEndId. */
  endToEndId: string;
  /** `natureza`: `ORIGINAL`, `RETIRADA`, `MED_OPERACIONAL`, `MED_FRAUDE`, `MED_PIX_AUTOMATICO`… */
  nature?: string;
  requestedAt?: string;
  settledAt?: string;
  /** `motivo` (why it was not made, typically). */
  reason?: string;
  description?: string;
}

/** A Pix Automático authorization (`/rec`, `RecNotification`). */
export interface RecurrenceUpdate {
  /** `idRec`. */
  id: string;
  /** `CRIADA`, `APROVADA`, `REJEITADA`, `EXPIRADA`, `CANCELADA`… as sent. */
  status: string;
  /** The last `atualizacao` entry's date, when given. */
  updatedAt?: string;
}

/** A Pix Automático recurring charge (`/cobr`, `CobRNotification`). */
export interface RecurringChargeUpdate {
  txid: string;
  /** `idRec`: the authorization the charge belongs to. */
  recurrenceId?: string;
  status: string;
  updatedAt?: string;
}

/**
 * What the four events share. `kind` is `transaction` and `transaction` is the charge as the payment book,
 * the journal and the console read it (id: the txid, else `e2e:<endToEndId>`; status `paid`, or `refunded`
 * once a refund is returned), so a standard Pix is judged by the same rules as the gateway family's.
 */
export interface ApiPixEventBase<N extends ApiPixEventName> extends Omit<EventBase<N>, 'variant'> {
  kind: 'transaction';
  /** Always `api-pix`: the Central Bank's standard body. */
  variant: 'api-pix';
  transaction: Transaction;
}

export interface PixReceivedEvent extends ApiPixEventBase<'pix_received'> {
  pix: ReceivedPix;
  /**
   * `false` when `createApiPixReceiver` has `keys` and `pix.key` (the `chave`) is not one of them, or the Pix
   * names none: the payment book holds it as `unknown_key`, so handlers see it only on a release. Absent otherwise.
   */
  keyKnown?: false;
}

export interface PixRefundUpdatedEvent extends ApiPixEventBase<'pix_refund_updated'> {
  refund: PixRefundUpdate;
  /** The original Pix the refund returns (its own `devolucoes` left out). */
  pix: ReceivedPix;
  /** As `pix_received`'s: `false` when the original Pix's key is not one of the receiver's `keys`. */
  keyKnown?: false;
}

export interface RecurrenceUpdatedEvent extends ApiPixEventBase<'recurrence_updated'> {
  recurrence: RecurrenceUpdate;
}

export interface RecurringChargeUpdatedEvent extends ApiPixEventBase<'recurring_charge_updated'> {
  recurringCharge: RecurringChargeUpdate;
}

export type ApiPixEvent = PixReceivedEvent | PixRefundUpdatedEvent | RecurrenceUpdatedEvent | RecurringChargeUpdatedEvent;
