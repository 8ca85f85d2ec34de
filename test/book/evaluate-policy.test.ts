import { describe, expect, it } from 'vitest';
import { evaluatePolicy, type PolicyInput, type PolicyView } from '../../src/book/evaluate-policy.js';
import { checkPolicy, defaultPolicy } from '../../src/book/payment-policy.js';
import type { PixEvent } from '../../src/index.js';
import { readPixItem } from '../../src/api-pix/index.js';
import { apiPixPix, apiPixRefund } from '../../src/testing/index.js';
import { chargeEvent, transferEvent } from './book-events.js';

const receivedAt = Date.parse('2026-05-01T12:00:00Z');
const reasonsOf = (event: PixEvent, resource: PolicyView | undefined, extra: Partial<PolicyInput> = {}) =>
  evaluatePolicy({ resource, event, receivedAt, expectationsInUse: false, policy: defaultPolicy, ...extra }).map(
    (v) => `${v.reason}:${v.action}`,
  );
const at = (status: string, more: Partial<PolicyView> = {}): PolicyView => ({ status, payments: [], ...more });
const paidFact = (amountInCents: number, endToEndId?: string) =>
  endToEndId === undefined ? { amountInCents } : { amountInCents, endToEndId };

describe('evaluatePolicy: stale_status (the status order, transfers included)', () => {
  it.each([
    ['paid after refunded', chargeEvent('transaction_paid', { id: 'c' }), 'refunded'],
    ['created after paid', chargeEvent('transaction_created', { id: 'c' }), 'paid'],
    ['canceled after paid (two final states)', chargeEvent('transaction_canceled', { id: 'c' }), 'paid'],
    ['an update stating pending after paid', chargeEvent('transaction_updated', { id: 'c', status: 'pending' }), 'paid'],
    ['a transfer created after completed', transferEvent('transfer_created', { id: 't' }), 'completed'],
    ['a transfer processing after refused', transferEvent('transfer_updated', { id: 't' }), 'refused'],
  ])('%s: stale_status, held', (_label, event, status) => {
    expect(reasonsOf(event, at(status))).toContain('stale_status:hold');
  });

  it.each([
    ['paid after pending', chargeEvent('transaction_paid', { id: 'c' }), 'pending'],
    ['refunded after paid', chargeEvent('transaction_refunded', { id: 'c' }), 'paid'],
    ['a second partial refund (same status)', chargeEvent('transaction_refunded', { id: 'c' }), 'refunded'],
    ['an update restating paid', chargeEvent('transaction_updated', { id: 'c' }), 'paid'],
    ['an unknown status (cannot be judged)', chargeEvent('transaction_updated', { id: 'c', status: 'chargeback' }), 'paid'],
    ['a dispute after a refund (a new fact, not a status change)', chargeEvent('transaction_infraction', { id: 'c' }), 'refunded'],
    ['a transfer completed after processing', transferEvent('transfer_completed', { id: 't' }), 'processing'],
    [
      'a transfer created when queued (two words for the first step)',
      transferEvent('transfer_created', { id: 't', status: 'created' }),
      'queued',
    ],
    ['a transfer queued when created', transferEvent('transfer_created', { id: 't', status: 'queued' }), 'created'],
    ['the first event of a resource', chargeEvent('transaction_created', { id: 'c' }), undefined],
  ])('%s: no violation', (_label, event, status) => {
    expect(reasonsOf(event, status === undefined ? undefined : at(status))).toEqual([]);
  });
});

describe('evaluatePolicy: a charge with an expectation', () => {
  const expected = { amountInCents: 1000, payerDocument: '12345678909', expiresAt: '2026-05-01T11:00:00.000Z' };
  const pending = at('pending', { expected });

  it('a matching payment before expiry breaks nothing', () => {
    const event = chargeEvent(
      'transaction_paid',
      { id: 'c', payer: { document: '123.456.789-09' } },
      { timestamp: '2026-05-01T10:59:59Z' },
    );
    expect(reasonsOf(event, pending)).toEqual([]);
  });

  it('amount_mismatch: paid another amount (held by default)', () => {
    const event = chargeEvent('transaction_paid', { id: 'c', amountInCents: 990 }, { timestamp: '2026-05-01T10:00:00Z' });
    expect(reasonsOf(event, pending)).toEqual(['amount_mismatch:hold']);
  });

  it('payer_mismatch: another document, whatever the formatting (held by default)', () => {
    const event = chargeEvent(
      'transaction_paid',
      { id: 'c', payer: { document: '987.654.321-00' } },
      { timestamp: '2026-05-01T10:00:00Z' },
    );
    expect(reasonsOf(event, pending)).toEqual(['payer_mismatch:hold']);
  });

  it('no payer_mismatch when the event does not say who paid', () => {
    const event = chargeEvent('transaction_paid', { id: 'c' }, { timestamp: '2026-05-01T10:00:00Z' });
    expect(reasonsOf(event, pending)).toEqual([]);
  });

  it('paid_after_expiry: by the event timestamp (flagged by default)', () => {
    const event = chargeEvent('transaction_paid', { id: 'c' }, { timestamp: '2026-05-01T11:00:01Z' });
    expect(reasonsOf(event, pending)).toEqual(['paid_after_expiry:flag']);
  });

  it('paid_after_expiry: by the time of receipt when the event has no timestamp', () => {
    const event = chargeEvent('transaction_paid', { id: 'c' });
    expect(reasonsOf(event, pending)).toEqual(['paid_after_expiry:flag']);
    expect(reasonsOf(event, pending, { receivedAt: Date.parse('2026-05-01T10:00:00Z') })).toEqual([]);
  });

  it('paid_after_expiry, not stale_status, for a payment after the gateway said expired', () => {
    const event = chargeEvent('transaction_paid', { id: 'c' }, { timestamp: '2026-05-01T10:00:00Z' });
    expect(reasonsOf(event, at('expired', { expected }))).toEqual(['paid_after_expiry:flag']);
    expect(reasonsOf(event, at('expired'))).toEqual(['paid_after_expiry:flag']);
  });

  it('checks the expectation only on an event that newly states paid', () => {
    const restated = chargeEvent('transaction_updated', { id: 'c', amountInCents: 990 });
    expect(reasonsOf(restated, at('paid', { expected, payments: [paidFact(990)] }))).toEqual([]);
    const refunded = chargeEvent('transaction_refunded', { id: 'c', amountInCents: 990 });
    expect(reasonsOf(refunded, at('paid', { expected, payments: [paidFact(990)] }))).toEqual([]);
  });

  it('the policy decides hold or flag', () => {
    const event = chargeEvent('transaction_paid', { id: 'c', amountInCents: 990 }, { timestamp: '2026-05-01T10:00:00Z' });
    expect(reasonsOf(event, pending, { policy: checkPolicy({ amount_mismatch: 'flag' }) })).toEqual(['amount_mismatch:flag']);
  });
});

describe('evaluatePolicy: duplicate_payment', () => {
  it('a paid event with another endToEndId on a charge already paid (held by default)', () => {
    const event = chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E2' });
    expect(reasonsOf(event, at('paid', { payments: [paidFact(1000, 'E1')] }))).toEqual(['duplicate_payment:hold']);
  });

  it('the same endToEndId is the same payment, even with another amount', () => {
    const event = chargeEvent('transaction_updated', { id: 'c', endToEndId: 'E1', amountInCents: 1000 });
    expect(reasonsOf(event, at('paid', { payments: [paidFact(1000, 'E1')] }))).toEqual([]);
  });

  it('without an endToEndId, another amount is another payment and the same amount is not', () => {
    expect(reasonsOf(chargeEvent('transaction_paid', { id: 'c', amountInCents: 500 }), at('paid', { payments: [paidFact(1000)] }))).toEqual(
      ['duplicate_payment:hold'],
    );
    expect(reasonsOf(chargeEvent('transaction_paid', { id: 'c' }), at('paid', { payments: [paidFact(1000, 'E1')] }))).toEqual([]);
  });

  it('a dispute restating paid is not a payment', () => {
    const event = chargeEvent('transaction_infraction', { id: 'c', endToEndId: 'E9' });
    expect(reasonsOf(event, at('paid', { payments: [paidFact(1000, 'E1')] }))).toEqual([]);
  });
});

describe('evaluatePolicy: unknown_charge', () => {
  const paid = chargeEvent('transaction_paid', { id: 'c' });

  it('flags a payment for a charge never expected, once the book holds any expectation', () => {
    expect(reasonsOf(paid, undefined, { expectationsInUse: true })).toEqual(['unknown_charge:flag']);
    expect(reasonsOf(paid, at('pending'), { expectationsInUse: true })).toEqual(['unknown_charge:flag']);
  });

  it('says nothing while the book holds no expectation', () => {
    expect(reasonsOf(paid, undefined)).toEqual([]);
  });

  it('applies only to an event that newly states paid', () => {
    expect(reasonsOf(chargeEvent('transaction_created', { id: 'c' }), undefined, { expectationsInUse: true })).toEqual([]);
    expect(
      reasonsOf(chargeEvent('transaction_updated', { id: 'c' }), at('paid', { payments: [paidFact(1000)] }), { expectationsInUse: true }),
    ).toEqual([]);
    expect(reasonsOf(transferEvent('transfer_completed', { id: 't' }), undefined, { expectationsInUse: true })).toEqual([]);
  });
});

describe('evaluatePolicy: not_confirmed', () => {
  it('is reported when the gateway contradicted the event (held by default), on any event', () => {
    expect(reasonsOf(chargeEvent('transaction_paid', { id: 'c' }), undefined, { confirmed: false })).toEqual(['not_confirmed:hold']);
    expect(reasonsOf(transferEvent('transfer_completed', { id: 't' }), undefined, { confirmed: false })).toEqual(['not_confirmed:hold']);
    expect(reasonsOf(chargeEvent('transaction_paid', { id: 'c' }), undefined, { confirmed: true })).toEqual([]);
  });
});

describe('evaluatePolicy: unknown_key', () => {
  const pix = (keyKnown?: false) => {
    const read = readPixItem(apiPixPix({ key: 'outra@example.com', devolucoes: [apiPixRefund()] }), '');
    return read.events.map((event) => (keyKnown === undefined ? event : { ...event, keyKnown })) as PixEvent[];
  };

  it('holds a Pix (and its refunds) the receiver found sent to another key, before any other rule, on any book state', () => {
    for (const event of pix(false)) {
      expect(reasonsOf(event, undefined)).toEqual(['unknown_key:hold']);
      expect(reasonsOf(event, at('paid', { expected: { amountInCents: 1 } }), { expectationsInUse: true })[0]).toBe('unknown_key:hold');
    }
  });

  it('says nothing of a Pix the receiver did not mark (its key is one of `keys`, or there are no `keys`)', () => {
    for (const event of pix()) expect(reasonsOf(event, undefined)).toEqual([]);
  });
});

describe('evaluatePolicy: messages', () => {
  it('quote and cut a status from the payload, and never carry a document', () => {
    const event = chargeEvent('transaction_updated', { id: 'c', status: 'pending' });
    const [stale] = evaluatePolicy({ resource: at('paid'), event, receivedAt, expectationsInUse: false, policy: defaultPolicy });
    expect(stale?.message).toBe('transaction_updated states "pending" after "paid": it would move the transaction backwards.');
    const payer = chargeEvent('transaction_paid', { id: 'c', payer: { document: '98765432100' } });
    const [mismatch] = evaluatePolicy({
      resource: at('pending', { expected: { amountInCents: 1000, payerDocument: '12345678909' } }),
      event: payer,
      receivedAt,
      expectationsInUse: true,
      policy: defaultPolicy,
    });
    expect(mismatch?.reason).toBe('payer_mismatch');
    expect(mismatch?.message).not.toMatch(/\d{3}/);
  });
});
