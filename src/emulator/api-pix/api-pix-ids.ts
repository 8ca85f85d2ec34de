import { randomBytes } from 'node:crypto';

/** Random lower-case letters and digits: txids, refund ids and the tails of endToEndIds. */
export function randomAlnum(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** `yyyyMMddHHmm` (UTC), as endToEndIds and rtrIds carry it. */
export function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-T:]/g, '').slice(0, 12);
}
