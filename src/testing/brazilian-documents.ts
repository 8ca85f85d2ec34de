import { cnpjFromBase, cpfFromBase, isRepeatedDigits } from '../shared/brazilian-documents.js';
import { randomDigits, randomSource, type RandomSource } from './seeded-random.js';

export { isValidCnpj, isValidCpf } from '../shared/brazilian-documents.js';

// The gateway answers 400 "wrong CPF/CNPJ" without valid check digits, so fixtures carry real ones.

/** An 11-digit CPF with valid check digits. */
export function generateCpf(random: RandomSource = randomSource()): string {
  let base = randomDigits(random, 9);
  while (isRepeatedDigits(base)) base = randomDigits(random, 9);
  return cpfFromBase(base);
}

/** A 14-digit CNPJ (headquarters branch `0001`) with valid check digits. */
export function generateCnpj(random: RandomSource = randomSource()): string {
  let root = randomDigits(random, 8);
  while (isRepeatedDigits(root)) root = randomDigits(random, 8);
  return cnpjFromBase(`${root}0001`);
}
