// CPF and CNPJ check digits (mod 11), as the Receita Federal defines them.

function checkDigit(digits: readonly number[], weights: readonly number[]): number {
  const sum = digits.reduce((acc, d, i) => acc + d * (weights[i] as number), 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function toDigits(value: string): number[] {
  return [...value].map(Number);
}

/** True for an 11-digit CPF (digits only) whose two check digits are right and which is not one repeated digit. */
export function isValidCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const d = toDigits(cpf);
  const first = checkDigit(d.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[9] === first && d[10] === second;
}

/** True for a 14-digit CNPJ (digits only) whose two check digits are right and which is not one repeated digit. */
export function isValidCnpj(cnpj: string): boolean {
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const d = toDigits(cnpj);
  const first = checkDigit(d.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[12] === first && d[13] === second;
}
