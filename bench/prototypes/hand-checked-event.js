// Prototype, bench-only: a hand-checked fast path for the commonest shape (Variant B / short
// transaction events), building exactly the event normalizeEvent builds. Anything it does not accept
// falls back to normalizeEvent, so zod still decides every rejection and writes its path + message
// (that is where zod serves: exact, readable errors for the rare bad payload, and the other shapes).
import { isPixEventName, isTransferEventName } from '../../dist/src/events/event-names.js';
import { normalizeEvent } from '../../dist/src/events/normalize-event.js';

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const optText = (v) => v === undefined || typeof v === 'string';
const cents = (v) => Number.isSafeInteger(v) && v >= 0;
const payerFields = ['name', 'document', 'bank', 'branch', 'account_type', 'account_number'];

export function handCheckedEvent(value) {
  const event = fastB(value);
  return event === undefined ? normalizeEvent(value) : { ok: true, event };
}

function fastB(v) {
  if (!isObject(v)) return undefined;
  const name = v.event;
  if (typeof name !== 'string' || !isPixEventName(name) || isTransferEventName(name) || isObject(v.data)) return undefined;
  if (!optText(v.id) || !optText(v.scope) || (v.type !== undefined && v.type !== 'transaction')) return undefined;
  const t = v.transaction;
  if (!isObject(t) || typeof t.id !== 'string' || t.id === '' || !cents(t.amount) || typeof t.status !== 'string') return undefined;
  if (t.refund !== undefined) return undefined; // rare: let the full schema build the refund
  const pix = t.pix;
  let payer;
  if (pix !== undefined) {
    if (!isObject(pix) || !optText(pix.endToEndId)) return undefined;
    const p = pix.payerInfo;
    if (p !== undefined) {
      if (!isObject(p)) return undefined;
      for (const f of payerFields) if (!optText(p[f])) return undefined;
      payer = {};
      if (p.name !== undefined) payer.name = p.name;
      if (p.document !== undefined) payer.document = p.document;
      if (p.bank !== undefined) payer.bank = p.bank;
      if (p.branch !== undefined) payer.branch = p.branch;
      if (p.account_type !== undefined) payer.accountType = p.account_type;
      if (p.account_number !== undefined) payer.accountNumber = p.account_number;
    }
  }
  const transaction = { id: t.id, status: t.status, amountInCents: t.amount };
  if (pix?.endToEndId !== undefined) transaction.endToEndId = pix.endToEndId;
  if (payer !== undefined) transaction.payer = payer;
  const out = { kind: 'transaction', name, variant: v.scope === undefined ? 'short' : 'b' };
  if (v.id !== undefined) out.deliveryId = v.id;
  if (v.scope !== undefined) out.scope = v.scope;
  out.transaction = transaction;
  out.payload = v;
  return out;
}
