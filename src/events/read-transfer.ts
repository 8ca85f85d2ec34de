import type { Essentials } from './read-essentials.js';
import type { JsonObject, Transfer } from './event-types.js';
import type { LenientReader } from './lenient-reader.js';

/** The typed transfer: the essentials, plus every secondary field that reads (see the README's union table). */
export function readTransfer(r: LenientReader, essentials: Essentials, t: JsonObject, base: string): Transfer {
  const out: Transfer = { id: essentials.id, status: essentials.status, amountInCents: essentials.amountInCents };
  const net = r.centsOf(t['netAmountInCents'], t['netAmount'], base, 'netAmountInCents', 'netAmount');
  if (net !== undefined) out.netAmountInCents = net;
  const fees = r.centsOf(t['fees'], t['feesInCents'], base, 'fees', 'feesInCents');
  if (fees !== undefined) out.feesInCents = fees;
  const pixKey = r.text(t['pixKey'], base, 'pixKey');
  if (pixKey !== undefined) out.pixKey = pixKey;

  // B nests settlement details under `pix` (null until the transfer settles); A may carry them flat.
  const pix = r.object(t['pix'], base, 'pix');
  const pixEndToEndId = pix && r.text(pix['endToEndId'], `${base}.pix`, 'endToEndId');
  const endToEndId = pixEndToEndId ?? r.text(t['endToEndId'], base, 'endToEndId');
  if (endToEndId !== undefined) out.endToEndId = endToEndId;
  const creditorAccount =
    (pix && r.object(pix['creditorAccount'], `${base}.pix`, 'creditorAccount')) ?? r.object(t['creditorAccount'], base, 'creditorAccount');
  if (creditorAccount) out.creditorAccount = creditorAccount;
  return out;
}
