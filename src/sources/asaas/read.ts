import type { TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PspTransactionEvent } from '../../events/event-types.js';
import { decimalToCents } from '../shared/cents.js';
import { chargeEvent, nameOfStatus, object, text } from '../shared/charge-event.js';

// docs.asaas.com "Eventos para cobranças" and "Sobre os webhooks": `{ id: "evt_…", event, dateCreated,
// payment: { object: "payment", id, value, netValue, billingType, status, … } }`; optional fields come as
// `null` (read here as absent). For Pix only PAYMENT_RECEIVED comes: it is the payment (there is no
// PAYMENT_CONFIRMED to wait for).

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
  DELETED: 'canceled',
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
  const status = envelope.event !== undefined ? eventStatuses[envelope.event] : paymentStatuses[String(payment['status'])];
  const amountInCents = decimalToCents(payment['value']);
  if (id === undefined || status === undefined || amountInCents === undefined) return undefined;
  const refunded = status === 'refunded' ? decimalToCents(payment['refundedValue'] ?? payment['value']) : undefined;
  return chargeEvent({
    provider: 'asaas',
    name: nameOfStatus(status),
    status,
    id,
    amountInCents,
    payload,
    source,
    deliveryId: envelope.id,
    timestamp: envelope.dateCreated ?? text(payment['paymentDate']),
    netAmountInCents: decimalToCents(payment['netValue']),
    ...(refunded !== undefined && { refund: { amountInCents: refunded } }),
  });
}

/** A webhook body (or a queued one) as its event. */
export function readAsaasBody(body: JsonObject, source: EventSource = 'webhook'): PspTransactionEvent | undefined {
  const payment = object(body['payment']);
  const event = text(body['event']);
  if (payment === undefined || !isAsaasPaymentEvent(event)) return undefined;
  return asaasEvent(payment, body, { event, id: text(body['id']), dateCreated: text(body['dateCreated']) }, source);
}
