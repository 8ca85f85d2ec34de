import type { TransactionEventName, TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PixPayer, Provider, PspTransactionEvent, Transaction } from '../../events/event-types.js';

/** The facts a PSP's charge states, read into the union's `transaction`. */
interface ChargeFacts {
  provider: Provider;
  name: TransactionEventName;
  status: TransactionStatus;
  id: string;
  amountInCents: number;
  /** The body (or fetched record) the facts were read from: `event.payload`. */
  payload: JsonObject;
  source?: EventSource | undefined;
  deliveryId?: string | undefined;
  timestamp?: string | undefined;
  endToEndId?: string | undefined;
  payerName?: string | undefined;
  payerDocument?: string | undefined;
  netAmountInCents?: number | undefined;
  feesInCents?: number | undefined;
  refund?: Transaction['refund'];
  infraction?: Transaction['infraction'];
}

const noWarnings = Object.freeze([]);

/** One charge event of the union, as every PSP source emits it: same names, same fields as the gateway's. */
export function chargeEvent(facts: ChargeFacts): PspTransactionEvent {
  const transaction: Transaction = { id: facts.id, status: facts.status, amountInCents: facts.amountInCents };
  if (facts.netAmountInCents !== undefined) transaction.netAmountInCents = facts.netAmountInCents;
  if (facts.feesInCents !== undefined) transaction.feesInCents = facts.feesInCents;
  if (facts.endToEndId !== undefined) transaction.endToEndId = facts.endToEndId;
  if (facts.payerName !== undefined || facts.payerDocument !== undefined) {
    const payer: PixPayer = {};
    if (facts.payerName !== undefined) payer.name = facts.payerName;
    if (facts.payerDocument !== undefined) payer.document = facts.payerDocument;
    transaction.payer = payer;
  }
  if (facts.refund !== undefined) transaction.refund = facts.refund;
  if (facts.infraction !== undefined) transaction.infraction = facts.infraction;
  const event: PspTransactionEvent = {
    kind: 'transaction',
    name: facts.name,
    variant: 'psp',
    source: facts.source ?? 'webhook',
    provider: facts.provider,
    warnings: noWarnings,
    payload: facts.payload,
    raw: facts.payload,
    transaction,
  };
  if (facts.deliveryId !== undefined) event.deliveryId = facts.deliveryId;
  if (facts.timestamp !== undefined) event.timestamp = facts.timestamp;
  return event;
}

/** The event name that states a status (a PSP's own status read first into the union's). */
export function nameOfStatus(status: TransactionStatus): TransactionEventName {
  switch (status) {
    case 'paid':
      return 'transaction_paid';
    case 'refunded':
      return 'transaction_refunded';
    case 'canceled':
    case 'expired':
      return 'transaction_canceled';
    case 'pending':
      return 'transaction_created';
    default:
      return 'transaction_updated';
  }
}

/** A string field, `null` and empty read as absent (Asaas sends optional fields as `null`). */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** An object field, or undefined. */
export function object(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}
