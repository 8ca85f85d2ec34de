import type { Essentials } from './read-essentials.js';
import type { JsonObject, PixCustomer, PixInfraction, PixPayer, PixRefund, Transaction } from './event-types.js';
import type { LenientReader } from './lenient-reader.js';

const netKeys = ['netAmountInCents', 'netAmount'] as const;
const feeKeys = ['fees', 'feesInCents'] as const;

/** The typed transaction: the essentials, plus every secondary field that reads (see the README's union table). */
export function readTransaction(r: LenientReader, essentials: Essentials, t: JsonObject, base: string, root: JsonObject): Transaction {
  const out: Transaction = { id: essentials.id, status: essentials.status, amountInCents: essentials.amountInCents };
  const net = r.centsOf(t, netKeys, base);
  if (net !== undefined) out.netAmountInCents = net;
  const fees = r.centsOf(t, feeKeys, base);
  if (fees !== undefined) out.feesInCents = fees;

  const customer = r.object(t, 'customer', base);
  if (customer) out.customer = readCustomer(r, customer, `${base}.customer`);

  // B nests the payment details under `pix`; some A payloads carry them flat. `pix` wins when both do.
  const pix = r.object(t, 'pix', base);
  const pixBase = `${base}.pix`;
  const endToEndId = (pix && r.text(pix, 'endToEndId', pixBase)) ?? r.text(t, 'endToEndId', base);
  if (endToEndId !== undefined) out.endToEndId = endToEndId;
  const payerInfo = (pix && r.object(pix, 'payerInfo', pixBase)) ?? r.object(t, 'payerInfo', base);
  if (payerInfo) out.payer = readPayer(r, payerInfo, pix?.['payerInfo'] ? `${pixBase}.payerInfo` : `${base}.payerInfo`);

  const refund = r.object(t, 'refund', base);
  if (refund) out.refund = readRefund(r, refund, `${base}.refund`);

  const infraction = readInfractionOf(r, t, base) ?? readInfractionOf(r, root, '');
  if (infraction) out.infraction = infraction;
  return out;
}

function readCustomer(r: LenientReader, c: JsonObject, base: string): PixCustomer {
  const out: PixCustomer = {};
  const name = r.text(c, 'name', base);
  if (name !== undefined) out.name = name;
  const email = r.text(c, 'email', base);
  if (email !== undefined) out.email = email;
  const document = r.text(c, 'document', base);
  if (document !== undefined) out.document = document;
  const documentType = r.text(c, 'documentType', base);
  if (documentType !== undefined) out.documentType = documentType;
  const phone = r.text(c, 'phone', base);
  if (phone !== undefined) out.phone = phone;
  return out;
}

function readPayer(r: LenientReader, p: JsonObject, base: string): PixPayer {
  const out: PixPayer = {};
  const name = r.text(p, 'name', base);
  if (name !== undefined) out.name = name;
  const document = r.text(p, 'document', base);
  if (document !== undefined) out.document = document;
  const bank = r.text(p, 'bank', base);
  if (bank !== undefined) out.bank = bank;
  const branch = r.text(p, 'branch', base);
  if (branch !== undefined) out.branch = branch;
  const accountType = r.textOf(p, ['account_type', 'accountType'], base);
  if (accountType !== undefined) out.accountType = accountType;
  const accountNumber = r.textOf(p, ['account_number', 'accountNumber'], base);
  if (accountNumber !== undefined) out.accountNumber = accountNumber;
  return out;
}

function readRefund(r: LenientReader, refund: JsonObject, base: string): PixRefund {
  const out: PixRefund = {};
  const amount = r.centsOf(refund, ['amount', 'amountInCents'], base);
  if (amount !== undefined) out.amountInCents = amount;
  const reason = r.text(refund, 'reason', base);
  if (reason !== undefined) out.reason = reason;
  const refundedAt = r.text(refund, 'refundedAt', base);
  if (refundedAt !== undefined) out.refundedAt = refundedAt;
  return out;
}

// No published sample names the dispute's fields: read `infraction` (or `med`) on the resource, then on the
// payload's root, with the names MED providers use (id, status, reason or type, amount, openedAt or createdAt).
function readInfractionOf(r: LenientReader, source: JsonObject, base: string): PixInfraction | undefined {
  const key = source['infraction'] === undefined || source['infraction'] === null ? 'med' : 'infraction';
  const m = r.object(source, key, base);
  if (!m) return undefined;
  const mBase = base === '' ? key : `${base}.${key}`;
  const out: PixInfraction = {};
  const id = r.id(m, 'id', mBase);
  if (id !== undefined) out.id = id;
  const status = r.text(m, 'status', mBase);
  if (status !== undefined) out.status = status;
  const reason = r.textOf(m, ['reason', 'type'], mBase);
  if (reason !== undefined) out.reason = reason;
  const amount = r.centsOf(m, ['amount', 'amountInCents'], mBase);
  if (amount !== undefined) out.amountInCents = amount;
  const openedAt = r.textOf(m, ['openedAt', 'createdAt'], mBase);
  if (openedAt !== undefined) out.openedAt = openedAt;
  return out;
}
