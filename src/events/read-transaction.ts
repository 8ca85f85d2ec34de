import type { Essentials } from './read-essentials.js';
import type { JsonObject, PixCustomer, PixInfraction, PixPayer, PixRefund, Transaction } from './event-types.js';
import { isAbsent, type LenientReader } from './lenient-reader.js';

/** The typed transaction: the essentials, plus every secondary field that reads (see the README's union table). */
export function readTransaction(r: LenientReader, essentials: Essentials, t: JsonObject, base: string, root: JsonObject): Transaction {
  const out: Transaction = { id: essentials.id, status: essentials.status, amountInCents: essentials.amountInCents };
  const net = r.centsOf(t['netAmountInCents'], t['netAmount'], base, 'netAmountInCents', 'netAmount');
  if (net !== undefined) out.netAmountInCents = net;
  const fees = r.centsOf(t['fees'], t['feesInCents'], base, 'fees', 'feesInCents');
  if (fees !== undefined) out.feesInCents = fees;

  const customer = r.object(t['customer'], base, 'customer');
  if (customer) out.customer = readCustomer(r, customer, `${base}.customer`);

  // B nests the payment details under `pix`; some A payloads carry them flat. `pix` wins when both do.
  const pix = r.object(t['pix'], base, 'pix');
  const pixEndToEndId = pix && r.text(pix['endToEndId'], `${base}.pix`, 'endToEndId');
  const endToEndId = pixEndToEndId ?? r.text(t['endToEndId'], base, 'endToEndId');
  if (endToEndId !== undefined) out.endToEndId = endToEndId;
  const nestedPayer = pix && r.object(pix['payerInfo'], `${base}.pix`, 'payerInfo');
  if (nestedPayer) out.payer = readPayer(r, nestedPayer, `${base}.pix.payerInfo`);
  else {
    const flatPayer = r.object(t['payerInfo'], base, 'payerInfo');
    if (flatPayer) out.payer = readPayer(r, flatPayer, `${base}.payerInfo`);
  }

  // On the resource, or (as for disputes) on the payload's root when the resource has none.
  const ownRefund = r.object(t['refund'], base, 'refund');
  const rootRefund = ownRefund ? undefined : r.object(root['refund'], '', 'refund');
  if (ownRefund) out.refund = readRefund(r, ownRefund, `${base}.refund`);
  else if (rootRefund) out.refund = readRefund(r, rootRefund, 'refund');

  const infraction = readInfractionOf(r, t, base) ?? readInfractionOf(r, root, '');
  if (infraction) out.infraction = infraction;
  return out;
}

function readCustomer(r: LenientReader, c: JsonObject, base: string): PixCustomer {
  const out: PixCustomer = {};
  const name = r.text(c['name'], base, 'name');
  if (name !== undefined) out.name = name;
  const email = r.text(c['email'], base, 'email');
  if (email !== undefined) out.email = email;
  const document = r.text(c['document'], base, 'document');
  if (document !== undefined) out.document = document;
  const documentType = r.text(c['documentType'], base, 'documentType');
  if (documentType !== undefined) out.documentType = documentType;
  const phone = r.text(c['phone'], base, 'phone');
  if (phone !== undefined) out.phone = phone;
  return out;
}

function readPayer(r: LenientReader, p: JsonObject, base: string): PixPayer {
  const out: PixPayer = {};
  const name = r.text(p['name'], base, 'name');
  if (name !== undefined) out.name = name;
  const document = readDocument(r, p['document'], base);
  if (document !== undefined) out.document = document;
  const bank = r.text(p['bank'], base, 'bank');
  if (bank !== undefined) out.bank = bank;
  const branch = r.text(p['branch'], base, 'branch');
  if (branch !== undefined) out.branch = branch;
  const accountType = r.textOf(p['account_type'], p['accountType'], base, 'account_type', 'accountType');
  if (accountType !== undefined) out.accountType = accountType;
  const accountNumber = r.textOf(p['account_number'], p['accountNumber'], base, 'account_number', 'accountNumber');
  if (accountNumber !== undefined) out.accountNumber = accountNumber;
  return out;
}

/**
 * The payer's document. Money is decided on it, so a document present in a shape other than text is never
 * dropped: a number is read as its digits (leading zeros lost, so it rarely matches), anything else as its
 * JSON text; either way the payment book compares it, and an expectation it does not meet is `payer_mismatch`.
 */
function readDocument(r: LenientReader, value: unknown, base: string): string | undefined {
  if (value === undefined || value === null || typeof value === 'string') return value ?? undefined;
  const text = typeof value === 'number' ? String(value) : JSON.stringify(value).slice(0, 40);
  r.warn(base, 'document', value, 'expected a string; read as text, so the payment book still compares it');
  return text === '' ? '?' : text;
}

// The names a refund's own id goes by in the gateway family and in PIX itself (a return's `rtrId`); the
// first one present decides. A refund's `endToEndId` is left out: it may be the paid charge's, shared by every refund.
const refundIdKeys = ['id', 'refundId', 'rtrId'] as const;

function readRefund(r: LenientReader, refund: JsonObject, base: string): PixRefund {
  const out: PixRefund = {};
  const idKey = refundIdKeys.find((key) => !isAbsent(refund[key]));
  const id = idKey === undefined ? undefined : r.id(refund[idKey], base, idKey);
  if (id !== undefined) out.id = id;
  const amount = r.centsOf(refund['amount'], refund['amountInCents'], base, 'amount', 'amountInCents');
  if (amount !== undefined) out.amountInCents = amount;
  const reason = r.text(refund['reason'], base, 'reason');
  if (reason !== undefined) out.reason = reason;
  const refundedAt = r.text(refund['refundedAt'], base, 'refundedAt');
  if (refundedAt !== undefined) out.refundedAt = refundedAt;
  return out;
}

// No published sample names the dispute's fields: read `infraction` (or `med`) on the resource, then on the
// payload's root, with the names MED providers use (id, status, reason or type, amount, openedAt or createdAt).
function readInfractionOf(r: LenientReader, source: JsonObject, base: string): PixInfraction | undefined {
  const infraction = source['infraction'];
  const key = isAbsent(infraction) ? 'med' : 'infraction';
  const m = r.object(isAbsent(infraction) ? source['med'] : infraction, base, key);
  if (!m) return undefined;
  const mBase = base === '' ? key : `${base}.${key}`;
  const out: PixInfraction = {};
  const id = r.id(m['id'], mBase, 'id');
  if (id !== undefined) out.id = id;
  const status = r.text(m['status'], mBase, 'status');
  if (status !== undefined) out.status = status;
  const reason = r.textOf(m['reason'], m['type'], mBase, 'reason', 'type');
  if (reason !== undefined) out.reason = reason;
  const amount = r.centsOf(m['amount'], m['amountInCents'], mBase, 'amount', 'amountInCents');
  if (amount !== undefined) out.amountInCents = amount;
  const openedAt = r.textOf(m['openedAt'], m['createdAt'], mBase, 'openedAt', 'createdAt');
  if (openedAt !== undefined) out.openedAt = openedAt;
  return out;
}
