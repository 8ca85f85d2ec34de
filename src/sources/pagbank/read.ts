import type { TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PixEvent } from '../../events/event-types.js';
import type { ReadFailure } from '../source.js';
import { integerCents } from '../shared/cents.js';
import { chargeEvent, nameOfStatus, object, text } from '../shared/charge-event.js';

// developer.pagbank.com.br/reference/webhooks: the notification is the order as the API returns it, with
// `charges[{ id, status, paid_at, amount: { value (cents), summary: { paid, refunded } }, payment_method }]`.

const statuses: Record<string, TransactionStatus> = {
  PAID: 'paid',
  AUTHORIZED: 'pending',
  IN_ANALYSIS: 'pending',
  WAITING: 'pending',
  DECLINED: 'canceled',
  CANCELED: 'canceled',
};

/** Every charge of an order as one event each; the charges that cannot be read as failures. */
export function readOrder(order: JsonObject, source: EventSource = 'webhook'): { events: PixEvent[]; failures: ReadFailure[] } {
  const events: PixEvent[] = [];
  const failures: ReadFailure[] = [];
  const charges = order['charges'];
  if (!Array.isArray(charges)) return { events, failures: [{ path: 'charges', message: 'charges: expected the order’s list of charges' }] };
  const payer = text(object(order['customer'])?.['tax_id']);
  charges.forEach((value: unknown, i) => {
    const charge = object(value);
    const id = text(charge?.['id']);
    const amount = object(charge?.['amount']);
    const amountInCents = integerCents(amount?.['value']);
    const summary = object(amount?.['summary']);
    const refundedCents = integerCents(summary?.['refunded']);
    let status = statuses[String(charge?.['status'])];
    // A paid charge refunded in part or whole is reported CANCELED with summary.refunded.
    if (status === 'canceled' && refundedCents !== undefined && refundedCents > 0) status = 'refunded';
    if (charge === undefined || id === undefined || status === undefined || amountInCents === undefined) {
      failures.push({
        path: `charges.${String(i)}`,
        message: `charges.${String(i)}: expected id, a known status and amount.value in cents`,
      });
      return;
    }
    const pix = object(object(charge['payment_method'])?.['pix']);
    events.push(
      chargeEvent({
        provider: 'pagbank',
        name: nameOfStatus(status),
        status,
        id,
        amountInCents,
        payload: order,
        source,
        deliveryId: text(order['id']),
        timestamp: text(charge['paid_at']) ?? text(charge['created_at']),
        endToEndId: text(pix?.['end_to_end_id']),
        payerDocument: text(object(pix?.['holder'])?.['tax_id']) ?? payer,
        ...(status === 'refunded' && { refund: { amountInCents: refundedCents! } }),
      }),
    );
  });
  return { events, failures };
}
