import { PixhookError } from '../shared/pixhook-error.js';
import { documentDigits } from './document-digits.js';
import type { ExpectedCharge, Expectation } from './payment-book.js';

/** The expectation as the book keeps it, or a `validation_failed` error naming the field that cannot be used. */
export function checkExpectation(charge: ExpectedCharge): Expectation {
  if (typeof charge !== 'object' || charge === null) refuse('expect()', 'an object { id, amountInCents, payerDocument?, expiresAt? }');
  if (typeof charge.id !== 'string' || charge.id === '' || charge.id.length > 200)
    refuse('id', 'a non-empty string of at most 200 characters');
  if (!Number.isSafeInteger(charge.amountInCents) || charge.amountInCents <= 0) refuse('amountInCents', 'a positive integer (cents)');
  const expected: Expectation = { amountInCents: charge.amountInCents };
  if (charge.payerDocument !== undefined) {
    const digits = typeof charge.payerDocument === 'string' ? documentDigits(charge.payerDocument) : undefined;
    if (digits === undefined) refuse('payerDocument', 'a CPF (11 digits) or CNPJ (14 digits), punctuation allowed');
    expected.payerDocument = digits;
  }
  if (charge.expiresAt !== undefined) {
    const value = charge.expiresAt;
    const ms =
      value instanceof Date
        ? value.getTime()
        : typeof value === 'number'
          ? value
          : typeof value === 'string'
            ? Date.parse(value)
            : Number.NaN;
    if (!Number.isFinite(ms)) refuse('expiresAt', 'a Date, an ISO 8601 string or epoch milliseconds');
    expected.expiresAt = new Date(ms).toISOString();
  }
  return expected;
}

function refuse(field: string, what: string): never {
  throw new PixhookError('validation_failed', `pixhook: \`${field}\` must be ${what}.`);
}
