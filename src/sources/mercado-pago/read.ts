import type { TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PspTransactionEvent } from '../../events/event-types.js';
import { decimalToCents } from '../shared/cents.js';
import { chargeEvent, nameOfStatus, object, text } from '../shared/charge-event.js';

// A payment as `GET /v1/payments/{id}` returns it (mercadopago/devsite-docs reference/payments/_payments_id/get):
// `id`, `status`, `status_detail`, `transaction_amount` (a decimal in reais), `transaction_amount_refunded`,
// `payer.identification.{type,number}`, `date_approved`, `point_of_interaction.transaction_data`.

/** Mercado Pago's payment statuses in the union's terms: `approved` is the payment. */
const statuses: Record<string, TransactionStatus> = {
  pending: 'pending',
  in_process: 'pending',
  in_mediation: 'pending',
  authorized: 'pending',
  approved: 'paid',
  rejected: 'canceled',
  cancelled: 'canceled',
  refunded: 'refunded',
  charged_back: 'refunded',
};

/** A fetched payment as one event, or undefined when it misses an essential (id, status, amount). */
export function paymentEvent(payment: JsonObject, source: EventSource = 'webhook'): PspTransactionEvent | undefined {
  const id = text(payment['id']);
  const status = statuses[String(payment['status'])];
  const amountInCents = decimalToCents(payment['transaction_amount']);
  if (id === undefined || status === undefined || amountInCents === undefined) return undefined;
  const identification = object(object(payment['payer'])?.['identification']);
  const data = object(object(payment['point_of_interaction'])?.['transaction_data']);
  const refunded = decimalToCents(payment['transaction_amount_refunded']);
  const net = decimalToCents(object(payment['transaction_details'])?.['net_received_amount']);
  return chargeEvent({
    provider: 'mercado-pago',
    name: nameOfStatus(status),
    status,
    id,
    amountInCents,
    payload: payment,
    source,
    timestamp: text(payment['date_approved']) ?? text(payment['date_last_updated']),
    // Not in the payment reference's table; present on Pix payments as `e2e_id` where the account shows it.
    endToEndId: text(data?.['e2e_id']),
    payerDocument: text(identification?.['number']),
    netAmountInCents: net,
    ...(status === 'refunded' && {
      refund: {
        ...(refunded !== undefined && { amountInCents: refunded }),
        ...(payment['status'] === 'charged_back' && { reason: 'charged_back' }),
      },
    }),
  });
}
