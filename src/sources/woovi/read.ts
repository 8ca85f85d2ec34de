import type { TransactionStatus } from '../../events/event-names.js';
import type { EventSource, JsonObject, PixEvent, PixInfraction } from '../../events/event-types.js';
import type { SourceRead } from '../source.js';
import { integerCents } from '../shared/cents.js';
import { chargeEvent, nameOfStatus, object, text } from '../shared/charge-event.js';

// developers.woovi.com/docs/webhook (examples/webhook-charge-payload): `{ event: "OPENPIX:CHARGE_COMPLETED",
// charge: { value (cents), status, correlationID, transactionID, paidAt, customer, payer }, pix: { endToEndId,
// value, time, payer } }`; `OPENPIX:TRANSACTION_RECEIVED` is a Pix to the key or a static QR (maybe no
// charge); `OPENPIX:DISPUTE_*` a MED dispute. The docs show the `woovi:` prefix as well.

const prefixes = ['OPENPIX:', 'woovi:', 'WOOVI:'];

/** The event's name without its prefix (`CHARGE_COMPLETED`), or undefined when it has neither prefix. */
function wooviEventName(event: unknown): string | undefined {
  if (typeof event !== 'string') return undefined;
  for (const prefix of prefixes) if (event.startsWith(prefix)) return event.slice(prefix.length);
  return undefined;
}

const chargeStatuses: Record<string, TransactionStatus> = {
  CHARGE_CREATED: 'pending',
  CHARGE_COMPLETED: 'paid',
  TRANSACTION_RECEIVED: 'paid',
  CHARGE_EXPIRED: 'expired',
  TRANSACTION_REFUND_RECEIVED: 'refunded',
};

function documentOf(party: JsonObject | undefined): string | undefined {
  const taxId = party?.['taxID'];
  return text(object(taxId)?.['taxID']) ?? text(taxId);
}

/** A Woovi body as its event: empty for events this source does not read, a failure when an essential is missing. */
export function readWoovi(body: JsonObject, source: EventSource = 'webhook'): SourceRead {
  const name = wooviEventName(body['event']);
  const dispute = name?.startsWith('DISPUTE_') === true;
  const status: TransactionStatus | undefined = dispute ? 'paid' : name === undefined ? undefined : chargeStatuses[name];
  if (status === undefined) return { events: [], hints: [], failures: [] };
  const charge = object(body['charge']) ?? object(object(body['pix'])?.['charge']);
  const pix = object(body['pix']);
  const endToEndId = text(pix?.['endToEndId']);
  // The merchant's own id of the charge (what a book expectation names); a Pix without a charge is its endToEndId.
  const id = text(charge?.['correlationID']) ?? (endToEndId === undefined ? undefined : `e2e:${endToEndId}`);
  const amountInCents = integerCents(charge?.['value']) ?? integerCents(pix?.['value']);
  if (id === undefined || amountInCents === undefined)
    return {
      events: [],
      hints: [],
      failures: [{ path: 'charge', message: 'charge: expected correlationID (or pix.endToEndId) and value in cents' }],
    };
  const event: PixEvent = chargeEvent({
    provider: 'woovi',
    name: dispute ? 'transaction_infraction' : nameOfStatus(status),
    status,
    id,
    amountInCents,
    payload: body,
    source,
    timestamp: text(charge?.['paidAt']) ?? text(pix?.['time']),
    endToEndId,
    payerName: text(object(pix?.['payer'])?.['name']) ?? text(object(charge?.['payer'])?.['name']),
    payerDocument: documentOf(object(pix?.['payer'])) ?? documentOf(object(charge?.['payer'])) ?? documentOf(object(charge?.['customer'])),
    ...(dispute && { infraction: disputeOf(body, name!) }),
  });
  return { events: [event], hints: [], failures: [] };
}

function disputeOf(body: JsonObject, name: string): PixInfraction {
  const dispute = object(body['dispute']) ?? {};
  const id = text(dispute['id']) ?? text(dispute['correlationID']);
  const openedAt = text(dispute['createdAt']);
  const reason = text(dispute['reason']);
  const amount = integerCents(dispute['value']);
  return {
    status: text(dispute['status']) ?? name.slice('DISPUTE_'.length).toLowerCase(),
    ...(id !== undefined && { id }),
    ...(openedAt !== undefined && { openedAt }),
    ...(reason !== undefined && { reason }),
    ...(amount !== undefined && { amountInCents: amount }),
  };
}
