import { normalizeEvent, type PixEvent, type PixEventName } from '../index.js';

/**
 * The event a webhook would have carried for a final status, in every variant. The interface lists no
 * `transaction_canceled` or `transaction_expired`: a charge that lapses unpaid is a status change,
 * `transaction_updated` — with status `canceled` in Variant A (which has no `expired`), `expired` in B.
 * Other statuses are not final. A gateway that sends `transaction_canceled`: pass `eventFor`.
 */
export const defaultStatusEvents: Readonly<Record<string, PixEventName>> = {
  paid: 'transaction_paid',
  refunded: 'transaction_refunded',
  canceled: 'transaction_updated',
  expired: 'transaction_updated',
};

/** The webhook payload shape the gateway sends: `a`, `b`, or `short` (B without scope, pix or refund). */
export type ReconcileVariant = 'a' | 'b' | 'short';

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

/** Why a charge made no event: `not_final` is normal (read again later); `unreadable` is a failure. */
export type NoEvent = { skip: 'not_final'; message: string } | { skip: 'unreadable'; message: string };

/**
 * Builds the event through `normalizeEvent` from a payload in the variant's own shape, so its name, its
 * type, its `variant` and its dedupe key are exactly what that variant's webhook would give: the short
 * form carries no refund, so neither does its recovered event. `unreadable` when the status is final but
 * the record lacks what an event needs (an integer amount).
 */
export function recoveredEvent(
  transaction: ReadTransaction,
  eventFor: (status: string) => PixEventName | undefined,
  variant: ReconcileVariant = 'a',
): { event: PixEvent } | NoEvent {
  const name = eventFor(transaction.status);
  if (name === undefined) return { skip: 'not_final', message: `status ${JSON.stringify(transaction.status)} is not final` };
  const raw = transaction.raw ?? {};
  const pix = asObject(raw['pix']);
  const endToEndId = asString(pix?.['endToEndId']) ?? asString(raw['endToEndId']);
  const payerInfo = strings(asObject(pix?.['payerInfo']) ?? asObject(raw['payerInfo']), {
    name: ['name'],
    document: ['document'],
    bank: ['bank'],
    branch: ['branch'],
    account_type: ['account_type', 'accountType'],
    account_number: ['account_number', 'accountNumber'],
  });
  // The gateway's refund record as it is: the webhook's reader then takes the same id, amount and time from it.
  const refund = asObject(raw['refund']);
  const payload = payloadFor(variant, name, transaction, { endToEndId, payerInfo, refund });
  const normalized = normalizeEvent(payload, { source: 'reconcile' });
  if (!normalized.ok) return { skip: 'unreadable', message: `the record cannot make a ${name} event: ${normalized.message}` };
  if (normalized.event.kind === 'unknown')
    return { skip: 'unreadable', message: `eventFor gave ${JSON.stringify(name)}, which is not a known event` };
  // `source` is set the same way whether or not normalizeEvent takes it as an option.
  return { event: Object.assign(normalized.event, { source: 'reconcile' as const }) };
}

interface Details {
  endToEndId: string | undefined;
  payerInfo: Record<string, string> | undefined;
  refund: Record<string, unknown> | undefined;
}

function payloadFor(variant: ReconcileVariant, name: PixEventName, transaction: ReadTransaction, d: Details): Record<string, unknown> {
  const { id, status, amountInCents } = transaction;
  if (variant === 'a') {
    const data = {
      id,
      status,
      amountInCents,
      ...(d.endToEndId && { endToEndId: d.endToEndId }),
      ...(d.payerInfo && { payerInfo: d.payerInfo }),
      ...(d.refund && { refund: d.refund }),
    };
    return { event: name, data };
  }
  if (variant === 'short') return { id, type: 'transaction', event: name, transaction: { id, amount: amountInCents, status } };
  const pix = (d.endToEndId ?? d.payerInfo) && {
    pix: { ...(d.endToEndId && { endToEndId: d.endToEndId }), ...(d.payerInfo && { payerInfo: d.payerInfo }) },
  };
  return {
    id,
    type: 'transaction',
    event: name,
    scope: 'reconcile',
    transaction: { id, amount: amountInCents, status, ...pix, ...(d.refund && { refund: d.refund }) },
  };
}
