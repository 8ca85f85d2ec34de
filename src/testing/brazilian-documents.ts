import { randomDigits, randomSource, type RandomSource } from './seeded-random.js';

// Receita Federal's mod-11 check digits: the gateway answers 400 "wrong CPF/CNPJ" without them.
function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * (weights[i] as number);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const cpfWeights1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const cpfWeights2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const cnpjWeights1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const cnpjWeights2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

function withCheckDigits(base: string, first: readonly number[], second: readonly number[]): string {
  const one = base + String(checkDigit(base, first));
  return one + String(checkDigit(one, second));
}

// Repeated digits (000…, 111…) pass the arithmetic but are rejected as invalid documents.
function isRepeated(digits: string): boolean {
  return /^(\d)\1*$/.test(digits);
}

/** An 11-digit CPF with valid check digits. */
export function generateCpf(random: RandomSource = randomSource()): string {
  let base = randomDigits(random, 9);
  while (isRepeated(base)) base = randomDigits(random, 9);
  return withCheckDigits(base, cpfWeights1, cpfWeights2);
}

/** A 14-digit CNPJ (headquarters branch `0001`) with valid check digits. */
export function generateCnpj(random: RandomSource = randomSource()): string {
  let root = randomDigits(random, 8);
  while (isRepeated(root)) root = randomDigits(random, 8);
  return withCheckDigits(`${root}0001`, cnpjWeights1, cnpjWeights2);
}

export function isValidCpf(value: string): boolean {
  if (!/^\d{11}$/.test(value) || isRepeated(value)) return false;
  return withCheckDigits(value.slice(0, 9), cpfWeights1, cpfWeights2) === value;
}

export function isValidCnpj(value: string): boolean {
  if (!/^\d{14}$/.test(value) || isRepeated(value)) return false;
  return withCheckDigits(value.slice(0, 12), cnpjWeights1, cnpjWeights2) === value;
}
