// CPF and CNPJ check digits (mod 11), as the Receita Federal defines them. One implementation for
// the client (validating before a request leaves) and the test kit (generating realistic documents).

const cpfWeights = [
  [10, 9, 8, 7, 6, 5, 4, 3, 2],
  [11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
] as const;
const cnpjWeights = [
  [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
  [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
] as const;

function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * (weights[i] as number);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function withCheckDigits(base: string, [first, second]: readonly [readonly number[], readonly number[]]): string {
  const one = base + String(checkDigit(base, first));
  return one + String(checkDigit(one, second));
}

/** Repeated digits (000…, 111…) pass the arithmetic but are not valid documents. */
export function isRepeatedDigits(digits: string): boolean {
  return /^(\d)\1*$/.test(digits);
}

/** The 11-digit CPF for 9 base digits. */
export const cpfFromBase = (base9: string): string => withCheckDigits(base9, cpfWeights);
/** The 14-digit CNPJ for 12 base digits (8 root + 4 branch). */
export const cnpjFromBase = (base12: string): string => withCheckDigits(base12, cnpjWeights);

/** True for an 11-digit CPF (digits only) with the right check digits, not one repeated digit. */
export function isValidCpf(value: string): boolean {
  return /^\d{11}$/.test(value) && !isRepeatedDigits(value) && cpfFromBase(value.slice(0, 9)) === value;
}

/** True for a 14-digit CNPJ (digits only) with the right check digits, not one repeated digit. */
export function isValidCnpj(value: string): boolean {
  return /^\d{14}$/.test(value) && !isRepeatedDigits(value) && cnpjFromBase(value.slice(0, 12)) === value;
}
