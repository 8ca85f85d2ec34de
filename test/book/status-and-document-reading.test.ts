import { describe, expect, it } from 'vitest';
import { createReceiver, memoryPaymentBook, type PixEvent } from '../../src/index.js';
import { transactionStatusSynonyms } from '../../src/events/read-status.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 28.2: a money event's status and payer document are read once, strictly, so no spelling switches a check off.

const secret = 'whsec_status_spellings';

function signed(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

const paidB = (id: string, status: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'dlv_' + id,
  type: 'transaction',
  event: 'transaction_paid',
  scope: 'postback',
  transaction: { id, status, amount: 1, ...extra },
});

describe('statuses and documents read once, strictly', () => {
  const spellings = ['PAID', 'Paid', 'approved', 'completed', 'paid ', ' Confirmed', 'CONCLUIDA', 'bank_says_ok', '', 'pending'];

  it.each(spellings)('a signed transaction_paid stating %j is judged as a payment: the wrong amount is held', async (status) => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'c', amountInCents: 1000, payerDocument: '12345678909' });
    const ran: PixEvent[] = [];
    const receiver = createReceiver({ secret, book }).on('transaction_paid', (event) => void ran.push(event));
    const result = await receiver.receive(signed(paidB('c', status)));
    expect([result.status, result.reason]).toEqual([200, 'held']);
    expect(ran).toEqual([]);
    const [held] = await book.held();
    expect(held?.violations.map((v) => v.reason)).toEqual(['amount_mismatch']);
    expect(held?.event.kind === 'transaction' && held.event.transaction.status).toBe('paid');
  });

  it('every synonym maps to a known status; statuses are trimmed and case-folded for transfers too', async () => {
    const known = new Set(['pending', 'paid', 'canceled', 'refunded', 'expired']);
    for (const [spelling, status] of Object.entries(transactionStatusSynonyms)) {
      expect(known.has(status), spelling).toBe(true);
      expect(spelling).toBe(spelling.trim().toLowerCase());
    }
    const book = memoryPaymentBook();
    const seen: string[] = [];
    const receiver = createReceiver({ secret, book })
      .on('transaction_refunded', (event) => void seen.push(event.transaction.status))
      .on('transfer_completed', (event) => void seen.push(event.transfer.status));
    await receiver.receive(
      signed({
        id: 'd1',
        type: 'transaction',
        event: 'transaction_refunded',
        scope: 'user',
        transaction: { id: 'r', status: ' Estornado', amount: 5 },
      }),
    );
    await receiver.receive(
      signed({
        id: 'd2',
        type: 'transfer',
        event: 'transfer_completed',
        scope: 'user',
        transfer: { id: 't', status: 'COMPLETED ', amount: 5 },
      }),
    );
    expect(seen).toEqual(['refunded', 'completed']);
  });

  it.each([
    ['a JSON number', 12345678908],
    ['a number that lost its leading zero', 1234567890],
    ['an object', { cpf: '12345678909' }],
    ['a boolean', true],
    ['an empty string', ''],
    ['not 11 or 14 digits', '1234'],
  ])('a payer document present as %s is compared, never skipped: payer_mismatch', async (_, document) => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'c', amountInCents: 1, payerDocument: '01234567890' });
    const receiver = createReceiver({ secret, book }).on('transaction_paid', () => {});
    const result = await receiver.receive(signed(paidB('c', 'paid', { pix: { endToEndId: 'E1', payerInfo: { document } } })));
    expect(result.reason).toBe('held');
    expect((await book.held())[0]?.violations.map((v) => v.reason)).toEqual(['payer_mismatch']);
  });

  it('the right payer document, as a string, still passes', async () => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'c', amountInCents: 1, payerDocument: '12345678909' });
    const receiver = createReceiver({ secret, book }).on('transaction_paid', () => {});
    const result = await receiver.receive(
      signed(paidB('c', 'paid', { pix: { endToEndId: 'E1', payerInfo: { document: '123.456.789-09' } } })),
    );
    expect([result.status, result.reason]).toEqual([200, undefined]);
  });
});
