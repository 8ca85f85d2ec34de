import type { Essentials } from './read-essentials.js';
import type { JsonObject, Transfer } from './event-types.js';
import type { LenientReader } from './lenient-reader.js';

const netKeys = ['netAmountInCents', 'netAmount'] as const;
const feeKeys = ['fees', 'feesInCents'] as const;

/** The typed transfer: the essentials, plus every secondary field that reads (see the README's union table). */
export function readTransfer(r: LenientReader, essentials: Essentials, t: JsonObject, base: string): Transfer {
  const out: Transfer = { id: essentials.id, status: essentials.status, amountInCents: essentials.amountInCents };
  const net = r.centsOf(t, netKeys, base);
  if (net !== undefined) out.netAmountInCents = net;
  const fees = r.centsOf(t, feeKeys, base);
  if (fees !== undefined) out.feesInCents = fees;
  const pixKey = r.text(t, 'pixKey', base);
  if (pixKey !== undefined) out.pixKey = pixKey;

  // B nests settlement details under `pix` (null until the transfer settles); A may carry them flat.
  const pix = r.object(t, 'pix', base);
  const pixBase = `${base}.pix`;
  const endToEndId = (pix && r.text(pix, 'endToEndId', pixBase)) ?? r.text(t, 'endToEndId', base);
  if (endToEndId !== undefined) out.endToEndId = endToEndId;
  const creditorAccount = (pix && r.object(pix, 'creditorAccount', pixBase)) ?? r.object(t, 'creditorAccount', base);
  if (creditorAccount) out.creditorAccount = creditorAccount;
  return out;
}
