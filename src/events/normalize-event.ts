import type { z } from 'zod';
import { isPixEventName, isTransferEventName } from './event-names.js';
import {
  variantATransactionSchema,
  variantATransferSchema,
  variantBTransactionSchema,
  variantBTransferSchema,
  type VariantATransaction,
  type VariantATransfer,
  type VariantBTransaction,
  type VariantBTransfer,
} from './event-schemas.js';
import type { JsonObject, PixEvent, PixRefund, Transaction, Transfer, UnknownEvent } from './event-types.js';

export type NormalizeResult =
  | { ok: true; event: PixEvent }
  | { ok: true; event: UnknownEvent }
  | { ok: false; message: string };

/**
 * Turns a verified JSON value into one typed event, whatever shape (A, B, short, transfer) it came in.
 * Unknown event names are not an error: they come back as `kind: 'unknown'`.
 */
export function normalizeEvent(value: unknown): NormalizeResult {
  if (!isJsonObject(value)) return invalid([], 'expected a JSON object');
  const name = value['event'];
  if (typeof name !== 'string' || name === '') return invalid(['event'], 'expected the event name as a string');
  if (!isPixEventName(name)) {
    const deliveryId = typeof value['id'] === 'string' ? value['id'] : undefined;
    return { ok: true, event: { kind: 'unknown', name, payload: value, ...(deliveryId && { deliveryId }) } };
  }
  const transfer = isTransferEventName(name);
  if (isJsonObject(value['data'])) {
    return transfer
      ? parse(variantATransferSchema, value, (p) => fromATransfer(p, value))
      : parse(variantATransactionSchema, value, (p) => fromATransaction(p, value));
  }
  return transfer
    ? parse(variantBTransferSchema, value, (p) => fromBTransfer(p, value))
    : parse(variantBTransactionSchema, value, (p) => fromBTransaction(p, value));
}

function parse<S extends z.ZodType>(
  schema: S,
  value: JsonObject,
  build: (parsed: z.infer<S>) => PixEvent,
): NormalizeResult {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, event: build(result.data) };
  const issue = result.error.issues[0];
  return invalid(issue?.path ?? [], issue?.message ?? 'not a known event shape');
}

function invalid(path: readonly PropertyKey[], message: string): NormalizeResult {
  const where = path.length > 0 ? path.map(String).join('.') : '(root)';
  return { ok: false, message: `${where}: ${message}` };
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The union is keyed by name; the schema already proved the name belongs to this kind.
type TransactionEventOf = Extract<PixEvent, { kind: 'transaction' }>;
type TransferEventOf = Extract<PixEvent, { kind: 'transfer' }>;

function fromATransaction(p: VariantATransaction, payload: JsonObject): PixEvent {
  const { data } = p;
  const transaction: Transaction = compact({
    id: data.id,
    status: data.status,
    amountInCents: data.amountInCents,
    netAmountInCents: data.netAmountInCents,
    customer: data.customer && compact(data.customer),
    endToEndId: data.endToEndId,
    refund: toRefund(data.refund),
  });
  return compact({
    kind: 'transaction',
    name: p.event,
    variant: 'a',
    timestamp: p.timestamp,
    transaction,
    payload,
  }) as TransactionEventOf;
}

function fromATransfer(p: VariantATransfer, payload: JsonObject): PixEvent {
  const { data } = p;
  const transfer: Transfer = compact({
    id: data.id,
    status: data.status,
    // The refine guarantees one of the two is present.
    amountInCents: (data.amountInCents ?? data.amount) as number,
    netAmountInCents: data.netAmountInCents ?? data.netAmount,
    feesInCents: data.fees,
    pixKey: data.pixKey,
    endToEndId: data.endToEndId,
  });
  return compact({
    kind: 'transfer',
    name: p.event,
    variant: 'a',
    timestamp: p.timestamp,
    transfer,
    payload,
  }) as TransferEventOf;
}

function fromBTransaction(p: VariantBTransaction, payload: JsonObject): PixEvent {
  const t = p.transaction;
  const payer = t.pix?.payerInfo;
  const transaction: Transaction = compact({
    id: t.id,
    status: t.status,
    amountInCents: t.amount,
    endToEndId: t.pix?.endToEndId,
    payer:
      payer &&
      compact({
        name: payer.name,
        document: payer.document,
        bank: payer.bank,
        branch: payer.branch,
        accountType: payer.account_type,
        accountNumber: payer.account_number,
      }),
    refund: toRefund(t.refund),
  });
  return compact({
    kind: 'transaction',
    name: p.event,
    variant: variantOfB(p),
    deliveryId: p.id,
    scope: p.scope,
    transaction,
    payload,
  }) as TransactionEventOf;
}

function fromBTransfer(p: VariantBTransfer, payload: JsonObject): PixEvent {
  const t = p.transfer;
  const transfer: Transfer = compact({
    id: t.id,
    status: t.status,
    amountInCents: t.amount,
    feesInCents: t.fees,
    pixKey: t.pixKey,
    endToEndId: t.pix?.endToEndId,
    creditorAccount: t.pix?.creditorAccount,
  });
  return compact({
    kind: 'transfer',
    name: p.event,
    variant: variantOfB(p),
    deliveryId: p.id,
    scope: p.scope,
    transfer,
    payload,
  }) as TransferEventOf;
}

// The short form of B carries only id, type, event and the resource: no scope, no pix details.
function variantOfB(p: { scope?: string | undefined }): 'b' | 'short' {
  return p.scope === undefined ? 'short' : 'b';
}

function toRefund(r: { amount?: number; amountInCents?: number; reason?: string; refundedAt?: string } | undefined) {
  if (!r) return undefined;
  return compact<PixRefund>({ amountInCents: r.amountInCents ?? r.amount, reason: r.reason, refundedAt: r.refundedAt });
}

// Drops undefined fields so events compare and print cleanly.
function compact<T extends object>(value: { [K in keyof T]: T[K] | undefined }): T {
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // for…in over these plain literals: no entries array per event (this runs on every delivery).
  for (const k in source) {
    const v = source[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}
