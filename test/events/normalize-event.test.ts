import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transactionEventNames, transferEventNames } from '../../src/events/event-names.js';
import { normalizeEvent } from '../../src/events/normalize-event.js';
import { readStatus } from '../../src/events/read-status.js';
import { shortPaid, variantAPaid, variantATransferCompleted, variantBPaid, variantBTransferCompleted } from '../contract/fixtures.js';

function ok(value: unknown) {
  const result = normalizeEvent(value);
  if (!result.ok) throw new Error(result.message);
  return result.event;
}

function invalid(value: unknown): string {
  const result = normalizeEvent(value);
  if (result.ok) throw new Error(`expected invalid, got ${JSON.stringify(result.event)}`);
  return result.message;
}

const idArb = fc.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/);
const centsArb = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const statusArb = fc.oneof(
  fc.constantFrom('pending', 'paid', 'canceled', 'refunded', 'expired'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

describe('normalizeEvent', () => {
  it('A, B and short encodings of one transaction event normalize to the same fields', () => {
    fc.assert(
      fc.property(fc.constantFrom(...transactionEventNames), idArb, centsArb, statusArb, (name, id, amount, status) => {
        const a = ok({ event: name, timestamp: '2026-01-01T00:00:00Z', data: { id, status, amountInCents: amount } });
        const b = ok({
          id,
          type: 'transaction',
          event: name,
          scope: 'postback',
          transaction: { id, amount, status, pix: { endToEndId: 'E1' } },
        });
        const short = ok({ id, type: 'transaction', event: name, transaction: { id, amount, status } });
        const fields = (e: ReturnType<typeof ok>) =>
          e.kind === 'transaction'
            ? { name: e.name, id: e.transaction.id, status: e.transaction.status, cents: e.transaction.amountInCents }
            : e;
        expect(fields(b)).toEqual(fields(a));
        expect(fields(short)).toEqual(fields(a));
        expect([a, b, short].map((e) => (e.kind === 'unknown' ? 'x' : e.variant))).toEqual(['a', 'b', 'short']);
      }),
      { numRuns: 300 },
    );
  });

  it('A and B encodings of one transfer event normalize to the same fields', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...transferEventNames),
        idArb,
        centsArb,
        statusArb,
        fc.boolean(),
        (name, id, amount, status, aUsesAmount) => {
          const data = aUsesAmount ? { id, status, amount } : { id, status, amountInCents: amount };
          const read = readStatus(name, status).status;
          const a = ok({ event: name, data });
          const b = ok({ id, type: 'transfer', event: name, scope: 'user', transfer: { id, amount, status } });
          for (const e of [a, b]) {
            expect(e.kind).toBe('transfer');
            if (e.kind === 'transfer')
              expect([e.name, e.transfer.id, e.transfer.status, e.transfer.amountInCents]).toEqual([name, id, read, amount]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('maps Variant A fields', () => {
    expect(ok(variantAPaid)).toEqual({
      kind: 'transaction',
      name: 'transaction_paid',
      variant: 'a',
      source: 'webhook',
      provider: 'gateway',
      timestamp: '2026-11-22T12:00:00.000Z',
      transaction: { id: 'tx_a_0001', status: 'paid', amountInCents: 15990, netAmountInCents: 15510, customer: { name: 'Maria da Silva' } },
      warnings: [],
      payload: variantAPaid,
      raw: variantAPaid,
    });
  });

  it('maps Variant B payer info, endToEndId, delivery id and scope', () => {
    const event = ok(variantBPaid);
    expect(event).toMatchObject({
      kind: 'transaction',
      variant: 'b',
      deliveryId: 'tx_b_0001',
      scope: 'postback',
      transaction: {
        id: 'tx_b_0001',
        amountInCents: 2500,
        endToEndId: 'E12345678202611221200abcdefghijk',
        payer: {
          name: 'João Pereira',
          bank: 'Banco Exemplo',
          branch: '0001',
          document: '12345678909',
          accountType: 'CHECKING',
          accountNumber: '123456-7',
        },
      },
    });
  });

  it('recognizes the short B form', () => {
    expect(ok(shortPaid)).toMatchObject({ variant: 'short', transaction: { id: 'tx_s_0001', amountInCents: 990 } });
  });

  it('maps transfers in both shapes, including net amount, fees, pix key and creditor account', () => {
    expect(ok(variantATransferCompleted)).toMatchObject({
      kind: 'transfer',
      variant: 'a',
      transfer: { id: 'tr_a_0001', amountInCents: 5000, netAmountInCents: 4950, feesInCents: 50, pixKey: 'loja@example.com' },
    });
    expect(ok(variantBTransferCompleted)).toMatchObject({
      kind: 'transfer',
      variant: 'b',
      scope: 'user',
      transfer: {
        id: 'tr_b_0001',
        amountInCents: 7000,
        endToEndId: 'E87654321202611221205zyxwvutsrqp',
        creditorAccount: { ispb: '87654321' },
      },
    });
  });

  it('maps a refund in either amount spelling', () => {
    const b = ok({
      ...variantBPaid,
      event: 'transaction_refunded',
      transaction: {
        ...variantBPaid.transaction,
        status: 'refunded',
        refund: { amount: 500, reason: 'customer', refundedAt: '2026-11-22T13:00:00Z' },
      },
    });
    expect(b.kind === 'transaction' && b.transaction.refund).toEqual({
      amountInCents: 500,
      reason: 'customer',
      refundedAt: '2026-11-22T13:00:00Z',
    });
  });

  it('accepts an endToEndId of 33 characters (a documented sample has one)', () => {
    const e = ok({ ...variantBPaid, transaction: { ...variantBPaid.transaction, pix: { endToEndId: 'E'.padEnd(33, '1') } } });
    expect(e.kind === 'transaction' && e.transaction.endToEndId?.length).toBe(33);
  });

  it('accepts unknown statuses and keeps them (a transaction_paid is judged as a payment whatever its status)', () => {
    const e = ok({ ...shortPaid, event: 'transaction_updated', transaction: { ...shortPaid.transaction, status: 'bank_failure_xyz' } });
    expect(e.kind === 'transaction' && e.transaction.status).toBe('bank_failure_xyz');
    const paid = ok({ ...shortPaid, transaction: { ...shortPaid.transaction, status: 'bank_failure_xyz' } });
    expect(paid.kind === 'transaction' && paid.transaction.status).toBe('paid');
    expect(paid.kind === 'transaction' && paid.warnings.map((w) => [w.path, /judged as a payment/.test(w.message ?? '')])).toEqual([
      ['transaction.status', true],
    ]);
  });

  it('returns unknown event names as kind unknown with the payload', () => {
    const event = ok({ event: 'transaction_chargeback', id: 'd1', whatever: [1] });
    expect(event).toEqual({
      kind: 'unknown',
      name: 'transaction_chargeback',
      source: 'webhook',
      provider: 'gateway',
      deliveryId: 'd1',
      payload: { event: 'transaction_chargeback', id: 'd1', whatever: [1] },
      raw: { event: 'transaction_chargeback', id: 'd1', whatever: [1] },
    });
    expect(event.raw).toBe(event.payload);
  });

  it('names the path of what is wrong', () => {
    expect(invalid({ ...variantBPaid, transaction: { ...variantBPaid.transaction, amount: '2500' } })).toMatch(/^transaction\.amount: /);
    expect(invalid({ event: 'transaction_paid', data: { id: 'x', status: 'paid', amountInCents: 1.5 } })).toMatch(/^data\.amountInCents: /);
    expect(invalid({ event: 'transfer_completed', data: { id: 'x', status: 'completed' } })).toMatch(/^data\.amountInCents: .*amount/);
    expect(invalid({ event: 42 })).toMatch(/^event: /);
    expect(invalid([1])).toMatch(/^\(root\): expected a JSON object/);
    expect(invalid({ event: 'transfer_completed', transaction: { id: 'x', amount: 1, status: 'paid' } })).toMatch(/^transfer: /);
  });

  it('refuses an empty resource id', () => {
    expect(invalid({ ...shortPaid, transaction: { ...shortPaid.transaction, id: '' } })).toMatch(/^transaction\.id/);
  });
});
