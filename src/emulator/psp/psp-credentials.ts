import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A credential given in the options, or a fresh random one. */
export function credential(given: Readonly<Record<string, string>>, name: string, prefix = ''): string {
  return given[name] ?? `${prefix}${randomBytes(16).toString('hex')}`;
}

/** True when `given` is `expected`, compared in constant time (as digests: lengths may differ). */
export function sameCredential(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Cents as the decimal reais Asaas and Mercado Pago write (`1050` → `10.5`). */
export const reais = (cents: number): number => Number((cents / 100).toFixed(2));

/** A random hex id part. */
export const randomId = (bytes = 8): string => randomBytes(bytes).toString('hex');
