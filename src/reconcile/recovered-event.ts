import { normalizeEvent, type PixEvent, type PixEventName } from '../index.js';

/**
 * The event a webhook would have carried for a final status. `expired` has no event of its own in the
 * interface: it is a status change (`transaction_updated`). Other statuses are not final.
 */
export const defaultStatusEvents: Readonly<Record<string, PixEventName>> = {
  paid: 'transaction_paid',
  refunded: 'transaction_refunded',
  canceled: 'transaction_canceled',
  expired: 'transaction_updated',
};

/** What the reconciler reads: `GET /api/v1/transactions/{id}` as `pixhook/client` returns it. */
export interface ReadTransaction {
  id: string;
  status: string;
  amountInCents: number | undefined;
  /** The record as the gateway sent it (end-to-end id, payer, refund are taken from it when present). */
  raw?: Record<string, unknown>;
}

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const asString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function strings(source: Record<string, unknown> | undefined, fields: Record<string, string[]>): Record<string, string> | undefined {
  if (!source) return undefined;
  const out: Record<string, string> = {};
  for (const [to, from] of Object.entries(fields)) {
    const value = from.map((name) => asString(source[name])).find((v) => v !== undefined);
    if (value !== undefined) out[to] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Builds the event through `normalizeEvent` from a Variant-B-shaped payload, so its type and its
 * dedupe key (`name:id:status`) are exactly a webhook's. Undefined when the status is not final or the
 * record lacks what an event needs (an integer amount).
 */
export function recoveredEvent(
  transaction: ReadTransaction,
  eventFor: (status: string) => PixEventName | undefined,
): { event: PixEvent } | { skip: string } {
  const name = eventFor(transaction.status);
  if (name === undefined) return { skip: `status ${JSON.stringify(transaction.status)} is not final` };
  const raw = transaction.raw ?? {};
  const pix = asObject(raw['pix']);
  const endToEndId = asString(pix?.['endToEndId']);
  const payerInfo = strings(asObject(pix?.['payerInfo']), {
    name: ['name'],
    document: ['document'],
    bank: ['bank'],
    branch: ['branch'],
    account_type: ['account_type', 'accountType'],
    account_number: ['account_number', 'accountNumber'],
  });
  const refundRecord = asObject(raw['refund']);
  const refund = refundRecord && {
    ...strings(refundRecord, { reason: ['reason'], refundedAt: ['refundedAt'] }),
    ...(Number.isSafeInteger(refundRecord['amountInCents'] ?? refundRecord['amount']) && { amount: (refundRecord['amountInCents'] ?? refundRecord['amount']) as number }),
  };
  const payload = {
    id: transaction.id,
    type: 'transaction',
    event: name,
    scope: 'reconcile',
    transaction: {
      id: transaction.id,
      amount: transaction.amountInCents,
      status: transaction.status,
      ...((endToEndId ?? payerInfo) && { pix: { ...(endToEndId && { endToEndId }), ...(payerInfo && { payerInfo }) } }),
      ...(refund && { refund }),
    },
  };
  const normalized = normalizeEvent(payload);
  if (!normalized.ok) return { skip: `the record cannot make an event: ${normalized.message}` };
  if (normalized.event.kind === 'unknown') return { skip: `${name} is not a known event` };
  // `source` is set the same way whether or not normalizeEvent takes it as an option.
  return { event: Object.assign(normalized.event, { source: 'reconcile' as const }) };
}
