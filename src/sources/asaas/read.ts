import type { TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PixInfraction, PixRefund, PspTransactionEvent } from '../../events/event-types.js';
import { decimalToCents } from '../shared/cents.js';
import { chargeEvent, nameOfStatus, object, text } from '../shared/charge-event.js';

// docs.asaas.com "Eventos para cobranças" and "Sobre os webhooks": `{ id: "evt_…", event, dateCreated,
// payment: { object: "payment", id, value, netValue, billingType, status, … } }`; optional fields come as
// `null` (read here as absent). For Pix only PAYMENT_RECEIVED comes: it is the payment (there is no
// PAYMENT_CONFIRMED to wait for).
// The same page lists the refund and chargeback events (PAYMENT_REFUNDED, PAYMENT_PARTIALLY_REFUNDED,
// PAYMENT_CHARGEBACK_REQUESTED "chargeback received", PAYMENT_CHARGEBACK_DISPUTE "in chargeback dispute",
// PAYMENT_AWAITING_CHARGEBACK_REVERSAL "dispute won, waiting for transfer from the acquirer"); every one
// carries the same `payment` object. A chargeback is the union's `transaction_infraction`, as the gateway's
// MED dispute: the charge keeps status `paid`, and the dispute's own status rides in `infraction.status`.

/** A payment's own `status` (GET /v3/payments/{id}) in the union's terms. */
const paymentStatuses: Record<string, TransactionStatus> = {
  PENDING: 'pending',
  AWAITING_RISK_ANALYSIS: 'pending',
  OVERDUE: 'pending',
  RECEIVED: 'paid',
  CONFIRMED: 'paid',
  RECEIVED_IN_CASH: 'paid',
  REFUNDED: 'refunded',
  REFUND_REQUESTED: 'paid',
  REFUND_IN_PROGRESS: 'paid',
  CHARGEBACK_REQUESTED: 'paid',
  CHARGEBACK_DISPUTE: 'paid',
  AWAITING_CHARGEBACK_REVERSAL: 'paid',
  DELETED: 'canceled',
};

/**
 * A chargeback's stage (the webhook's event, or the fetched payment's status) as `infraction.status`: open
 * while requested or disputed; `resolved` once won (the book's dispute alerts stop there).
 */
const chargebackStages: Record<string, string> = {
  PAYMENT_CHARGEBACK_REQUESTED: 'chargeback_requested',
  PAYMENT_CHARGEBACK_DISPUTE: 'chargeback_dispute',
  PAYMENT_AWAITING_CHARGEBACK_REVERSAL: 'resolved',
  CHARGEBACK_REQUESTED: 'chargeback_requested',
  CHARGEBACK_DISPUTE: 'chargeback_dispute',
  AWAITING_CHARGEBACK_REVERSAL: 'resolved',
};

/** The webhook's `event` in the union's terms; an event not listed is acknowledged as unknown. */
const eventStatuses: Record<string, TransactionStatus> = {
  PAYMENT_CREATED: 'pending',
  PAYMENT_UPDATED: 'pending',
  PAYMENT_RECEIVED: 'paid',
  PAYMENT_CONFIRMED: 'paid',
  PAYMENT_OVERDUE: 'pending',
  PAYMENT_DELETED: 'canceled',
  PAYMENT_REFUNDED: 'refunded',
  PAYMENT_PARTIALLY_REFUNDED: 'refunded',
  PAYMENT_CHARGEBACK_REQUESTED: 'paid',
  PAYMENT_CHARGEBACK_DISPUTE: 'paid',
  PAYMENT_AWAITING_CHARGEBACK_REVERSAL: 'paid',
};

/** True for the events whose payment this source reads. */
export function isAsaasPaymentEvent(name: unknown): name is string {
  return typeof name === 'string' && Object.hasOwn(eventStatuses, name);
}

/** A payment (from the webhook's `payment`, or fetched) as one event; `status` from the webhook's event unless fetched. */
export function asaasEvent(
  payment: JsonObject,
  payload: JsonObject,
  envelope: { event?: string | undefined; id?: string | undefined; dateCreated?: string | undefined },
  source: EventSource = 'webhook',
): PspTransactionEvent | undefined {
  const id = text(payment['id']);
  const stage = envelope.event ?? String(payment['status']);
  const status = envelope.event !== undefined ? eventStatuses[envelope.event] : paymentStatuses[stage];
  const amountInCents = decimalToCents(payment['value']);
  if (id === undefined || status === undefined || amountInCents === undefined) return undefined;
  const chargeback = Object.hasOwn(chargebackStages, stage) ? chargebackOf(payment, chargebackStages[stage]!, amountInCents) : undefined;
  const refund = status === 'refunded' ? refundOf(payment, stage) : undefined;
  return chargeEvent({
    provider: 'asaas',
    name: chargeback !== undefined ? 'transaction_infraction' : nameOfStatus(status),
    status,
    id,
    amountInCents,
    payload,
    source,
    deliveryId: envelope.id,
    timestamp: envelope.dateCreated ?? text(payment['paymentDate']),
    netAmountInCents: decimalToCents(payment['netValue']),
    ...(refund !== undefined && { refund }),
    ...(chargeback !== undefined && { infraction: chargeback }),
  });
}

/**
 * The refund a refunded payment states: the last done one of its `refunds` (`{ dateCreated, status, value,
 * description }`; `status` PENDING, CANCELLED or DONE, absent read as done) where it lists them; else, for a
 * whole refund, the payment's value. A partial refund without its list states no amount (never guessed from
 * the payment's value).
 */
function refundOf(payment: JsonObject, stage: string): PixRefund {
  const last = lastDoneRefund(payment);
  const refund: PixRefund = {};
  const amount =
    last !== undefined
      ? decimalToCents(last['value'])
      : stage === 'PAYMENT_PARTIALLY_REFUNDED'
        ? undefined
        : decimalToCents(payment['value']);
  if (amount !== undefined) refund.amountInCents = amount;
  const refundedAt = text(last?.['dateCreated']);
  if (refundedAt !== undefined) refund.refundedAt = refundedAt;
  const reason = text(last?.['description']);
  if (reason !== undefined) refund.reason = reason;
  return refund;
}

/** The last refund the payment lists as done (a pending or cancelled one has returned no money). */
function lastDoneRefund(payment: JsonObject): JsonObject | undefined {
  const refunds = Array.isArray(payment['refunds']) ? payment['refunds'] : [];
  for (let i = refunds.length - 1; i >= 0; i--) {
    const refund = object(refunds[i]);
    if (refund !== undefined && (refund['status'] === undefined || refund['status'] === null || refund['status'] === 'DONE')) return refund;
  }
  return undefined;
}

/**
 * Whether a payment fetched for a refund's webhook corroborates a partial refund: Asaas keeps a partially
 * refunded payment's status (RECEIVED, CONFIRMED) and lists the refund in `refunds`. Read as the refund, not as
 * the paid fact the status alone would say (which the handlers already had).
 */
function confirmsPartialRefund(webhookEvent: string | undefined, payment: JsonObject): boolean {
  if (webhookEvent !== 'PAYMENT_PARTIALLY_REFUNDED' && webhookEvent !== 'PAYMENT_REFUNDED') return false;
  const status = payment['status'];
  return (
    typeof status === 'string' &&
    paymentStatuses[status] === 'paid' &&
    !Object.hasOwn(chargebackStages, status) &&
    lastDoneRefund(payment) !== undefined
  );
}

/** A chargeback as the union's infraction: its stage, the payment's value, and its reason where the payment states one. */
function chargebackOf(payment: JsonObject, status: string, amountInCents: number): PixInfraction {
  const reason = text(object(payment['chargeback'])?.['reason']);
  return { status, amountInCents, ...(reason !== undefined && { reason }) };
}

/** A webhook body (or a queued one) as its event. */
export function readAsaasBody(body: JsonObject, source: EventSource = 'webhook'): PspTransactionEvent | undefined {
  const payment = object(body['payment']);
  const event = text(body['event']);
  if (payment === undefined || !isAsaasPaymentEvent(event)) return undefined;
  return asaasEvent(payment, body, { event, id: text(body['id']), dateCreated: text(body['dateCreated']) }, source);
}

/**
 * A payment fetched with `GET /v3/payments/{id}` for a webhook (`body`) as its event: the payment's own status
 * decides (its fact keys the event, `asaasKey`), the event keeps the webhook's id and date for the journal and the
 * book's timeline. Intake and a replay of the journaled record read it alike.
 */
export function confirmedAsaasEvent(
  payment: JsonObject,
  body: unknown,
  deliveryId: string | undefined,
  source: EventSource = 'webhook',
): PspTransactionEvent | undefined {
  const webhook = object(body);
  const refund = confirmsPartialRefund(text(webhook?.['event']), payment);
  return asaasEvent(
    payment,
    payment,
    { ...(refund && { event: 'PAYMENT_PARTIALLY_REFUNDED' }), id: deliveryId, dateCreated: text(webhook?.['dateCreated']) },
    source,
  );
}
