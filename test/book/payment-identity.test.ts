import { describe, expect, it } from 'vitest';
import { memoryDedupeStore } from '../../src/index.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import { releaseRefusal, type ResourceState } from '../../src/book/book-state.js';
import { chargeEvent, heldOn } from './book-events.js';
import { paymentIdentityScenarios } from './payment-identity-scenarios.js';

describe('one identity per payment fact, on the memory book', () => {
  paymentIdentityScenarios(async () => ({ book: memoryPaymentBook(), store: () => memoryDedupeStore() }));

  it('a held copy of a fact the book applied already is refused at release: already_applied', () => {
    const resource: ResourceState = {
      id: 'c',
      kind: 'transaction',
      status: 'paid',
      timeline: [],
      payments: [{ endToEndId: 'E1', amountInCents: 1000 }],
      refunds: [{ refundId: 'ri=R1', amountInCents: 1000 }],
      disputes: [],
    };
    const held = heldOn;
    expect(releaseRefusal(resource, held(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' })))).toBe('already_applied');
    expect(releaseRefusal(resource, held(chargeEvent('transaction_paid', { id: 'c' })))).toBe('already_applied');
    expect(releaseRefusal(resource, held(chargeEvent('transaction_refunded', { id: 'c', refund: { id: 'R1' } })))).toBe('already_applied');
    expect(releaseRefusal(resource, held(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E2' })))).toBeUndefined();
    expect(releaseRefusal(resource, held(chargeEvent('transaction_created', { id: 'c' })))).toBeUndefined();
    expect(releaseRefusal(undefined, held(chargeEvent('transaction_paid', { id: 'c' })))).toBeUndefined();
  });
});
