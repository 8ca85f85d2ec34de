import { describe, expect, it } from 'vitest';
import { isForwardTransition } from '../../src/index.js';

describe('isForwardTransition', () => {
  it.each([
    ['pending', 'paid', true],
    ['paid', 'refunded', true],
    ['pending', 'expired', true],
    ['paid', 'pending', false],
    ['refunded', 'paid', false],
    ['paid', 'paid', false],
    ['paid', 'canceled', false],
    ['paid', 'chargeback', undefined],
    ['toString', 'paid', undefined],
  ] as const)('transaction %s → %s: %s', (from, to, expected) => {
    expect(isForwardTransition({ kind: 'transaction', from, to })).toBe(expected);
  });

  it.each([
    ['queued', 'processing', true],
    ['created', 'completed', true],
    ['processing', 'refused', true],
    ['completed', 'processing', false],
    ['canceled', 'completed', false],
    ['queued', 'bank_failure', undefined],
  ] as const)('transfer %s → %s: %s', (from, to, expected) => {
    expect(isForwardTransition({ kind: 'transfer', from, to })).toBe(expected);
  });
});
