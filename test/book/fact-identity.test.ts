import { describe, expect, it } from 'vitest';
import { readPixItem } from '../../src/api-pix/index.js';
import { releaseRefusal, type ResourceState } from '../../src/book/book-state.js';
import { evaluatePolicy, moneyFactOf, statesPayment } from '../../src/book/evaluate-policy.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import { defaultPolicy } from '../../src/book/payment-policy.js';
import { memoryDedupeStore, type PixEvent } from '../../src/index.js';
import { apiPixPix, apiPixRefund, seededRandom } from '../../src/testing/index.js';
import { chargeEvent, heldOn } from './book-events.js';
import { factIdentityScenarios } from './fact-identity-scenarios.js';

describe('every fact read right, on the memory book', () => {
  factIdentityScenarios(async () => ({ book: memoryPaymentBook(), store: () => memoryDedupeStore() }));
});

describe('the identity of a devolução', () => {
  const random = seededRandom(360);
  const pix = apiPixPix({ amountInCents: 5000, random });
  const refundAt = (status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO', id = '1'): PixEvent =>
    readPixItem({ ...pix, devolucoes: [apiPixRefund({ id, status, amountInCents: 1000, random })] }, 'pix.0').events[1]!;

  it('is its Pix’s endToEndId, its id and its status: one fact per status, never the Pix’s payment', () => {
    const e2e = pix.endToEndId;
    expect(moneyFactOf(refundAt('EM_PROCESSAMENTO'))).toEqual({ kind: 'refund', id: `e2e=${e2e}:ri=1:processing`, amountInCents: 1000 });
    expect(moneyFactOf(refundAt('NAO_REALIZADO'))?.id).toBe(`e2e=${e2e}:ri=1:not_returned`);
    expect(moneyFactOf(refundAt('DEVOLVIDO', '2'))?.id).toBe(`e2e=${e2e}:ri=2:returned`);
    expect(statesPayment(refundAt('EM_PROCESSAMENTO'))).toBe(false);
  });

  it('one still processing is judged as no payment: no amount, expiry or second-payment check, never stale after a refund', () => {
    const violations = evaluatePolicy({
      resource: { status: 'refunded', expected: { amountInCents: 1, expiresAt: '2000-01-01T00:00:00.000Z' }, payments: [] },
      event: refundAt('EM_PROCESSAMENTO'),
      receivedAt: Date.now(),
      expectationsInUse: true,
      policy: defaultPolicy,
    });
    expect(violations).toEqual([]);
  });
});

describe('releaseRefusal: refunded_since_held', () => {
  const held = heldOn;
  const resource = (refundedSince: boolean): ResourceState => ({
    id: 'c',
    kind: 'transaction',
    status: 'refunded',
    timeline: [],
    payments: [],
    refunds: [{ refundId: 'ri=R1', amountInCents: 1000 }],
    holds: [
      {
        heldId: 'h',
        fact: { kind: 'payment', id: 'E1', amountInCents: 1000 },
        violations: [],
        ...(refundedSince && { refundedSince: true as const }),
      },
    ],
    disputes: [],
  });
  const paid = chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' });

  it('refuses a payment whose hold saw a refund; not one held after it, not another hold, not a non-payment', () => {
    expect(releaseRefusal(resource(true), held(paid))).toBe('refunded_since_held');
    expect(releaseRefusal(resource(false), held(paid))).toBeUndefined();
    expect(releaseRefusal(resource(true), held(paid, 'other'))).toBeUndefined();
    expect(releaseRefusal(resource(true), held(chargeEvent('transaction_created', { id: 'c' })))).toBeUndefined();
    expect(releaseRefusal(undefined, held(paid))).toBeUndefined();
    // A fact the book applied already says so first.
    expect(releaseRefusal(resource(true), held(chargeEvent('transaction_refunded', { id: 'c', refund: { id: 'R1' } })))).toBe(
      'already_applied',
    );
  });
});
