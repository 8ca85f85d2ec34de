import type { TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PspTransactionEvent } from '../../events/event-types.js';
import type { Hint, ReadFailure } from '../source.js';
import { integerCents } from '../shared/cents.js';
import { chargeEvent, nameOfStatus, object, text } from '../shared/charge-event.js';

// docs.pagar.me/docs/webhooks and /reference/obter-cobranca: a hook `{ id: "hook_…", type: "charge.paid" |
// "order.paid" | …, created_at, data }`, `data` the charge (or the order with its `charges`). The body is
// never believed: each charge it names is fetched (`GET /core/v5/charges/{id}`) and the fetched charge decides.

const statuses: Record<string, TransactionStatus> = {
  pending: 'pending',
  processing: 'pending',
  paid: 'paid',
  overpaid: 'paid',
  underpaid: 'paid',
  canceled: 'canceled',
  failed: 'canceled',
  chargedback: 'refunded',
};

/** The charges a hook names, as hints; an `order.*` hook names each of its charges. */
export function pagarmeHints(body: JsonObject): { hints: Hint[]; failures: ReadFailure[]; known: boolean } {
  const type = text(body['type']);
  const data = object(body['data']);
  if (type === undefined || !(type.startsWith('charge.') || type.startsWith('order.'))) return { hints: [], failures: [], known: false };
  const deliveryId = text(body['id']);
  const charges = type.startsWith('order.') ? data?.['charges'] : [data];
  if (!Array.isArray(charges) || charges.length === 0)
    return { hints: [], failures: [{ path: 'data', message: 'data: expected the charge (or the order’s charges)' }], known: true };
  const hints: Hint[] = [];
  const failures: ReadFailure[] = [];
  charges.forEach((charge: unknown, i) => {
    const id = text(object(charge)?.['id']);
    if (id === undefined) failures.push({ path: `data.charges.${String(i)}.id`, message: 'expected the charge id' });
    else hints.push({ id, resource: 'charge', deliveryId, body });
  });
  return { hints, failures, known: true };
}

/** A fetched charge as one event, or undefined when it misses an essential. */
export function pagarmeChargeEvent(
  charge: JsonObject,
  deliveryId?: string,
  source: EventSource = 'webhook',
): PspTransactionEvent | undefined {
  const id = text(charge['id']);
  let status = statuses[String(charge['status'])];
  const refunded = integerCents(charge['canceled_amount']);
  if (status === 'canceled' && refunded !== undefined && refunded > 0 && integerCents(charge['paid_amount']) !== undefined)
    status = 'refunded';
  // What was paid decides a payment's amount (an `underpaid` charge is held by the book's amount check).
  const amountInCents =
    status === 'paid' ? (integerCents(charge['paid_amount']) ?? integerCents(charge['amount'])) : integerCents(charge['amount']);
  if (id === undefined || status === undefined || amountInCents === undefined) return undefined;
  const last = object(charge['last_transaction']);
  const customer = object(charge['customer']);
  return chargeEvent({
    provider: 'pagarme',
    name: nameOfStatus(status),
    status,
    id,
    amountInCents,
    payload: charge,
    source,
    deliveryId,
    timestamp: text(charge['paid_at']) ?? text(charge['updated_at']),
    endToEndId: text(last?.['end_to_end_id']),
    payerDocument: text(object(last?.['payer'])?.['document']) ?? text(customer?.['document']),
    ...(status === 'refunded' && { refund: { amountInCents: refunded! } }),
  });
}
