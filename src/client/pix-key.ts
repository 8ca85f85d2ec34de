import { isValidCnpj, isValidCpf } from '../shared/brazilian-documents.js';

export const pixKeyTypes = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const;
export type PixKeyType = (typeof pixKeyTypes)[number];

export type PixKeyCheck = { ok: true; type: PixKeyType; key: string } | { ok: false; message: string };

const evpPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const phonePattern = /^\+[1-9]\d{9,13}$/;
const formattedCpf = /^\d{3}\.\d{3}\.\d{3}-\d{2}$/;
const formattedCnpj = /^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/;

/**
 * Infers a PIX key's type, or checks it against the type given, and returns the key as the DICT
 * stores it (CPF/CNPJ digits only). An 11-digit key is a CPF only if its check digits hold; phones
 * are inferred only in E.164 (`+55…`) so they can never be mistaken for one, but with the type given
 * as PHONE a 10–11 digit Brazilian number gets its +55.
 */
export function checkPixKey(rawKey: string, givenType?: PixKeyType): PixKeyCheck {
  const key = rawKey.trim();
  // Told it is a phone, a Brazilian number without its country code is unambiguous: add +55.
  if (givenType === 'PHONE') {
    const local = key.replace(/[\s()-]/g, '');
    if (/^\d{10,11}$/.test(local)) return { ok: true, type: 'PHONE', key: `+55${local}` };
  }
  const inferred = inferType(key);
  if (!inferred) {
    return {
      ok: false,
      message:
        'not a recognisable PIX key: expected a CPF or CNPJ with valid check digits, an e-mail, a phone in E.164 (+55…) or a random key (UUID)',
    };
  }
  if (givenType && givenType !== inferred.type) {
    return { ok: false, message: `the key is not a valid ${givenType} key (it looks like ${inferred.type})` };
  }
  return { ok: true, ...inferred };
}

/** The type of a PIX key, or undefined when it is none of them. */
export function inferPixKeyType(key: string): PixKeyType | undefined {
  return inferType(key.trim())?.type;
}

function inferType(key: string): { type: PixKeyType; key: string } | undefined {
  if (evpPattern.test(key)) return { type: 'EVP', key: key.toLowerCase() };
  if (emailPattern.test(key) && key.length <= 77) return { type: 'EMAIL', key: key.toLowerCase() };
  if (phonePattern.test(key)) return { type: 'PHONE', key };
  const digits = formattedCpf.test(key) || formattedCnpj.test(key) ? key.replace(/\D/g, '') : key;
  if (isValidCpf(digits)) return { type: 'CPF', key: digits };
  if (isValidCnpj(digits)) return { type: 'CNPJ', key: digits };
  return undefined;
}
