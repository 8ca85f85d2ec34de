// The deliveries of the book's benches: charge `i` paid once, signed (bench/book-memory.js, bench/book-memory-cpu.js), or
// as the normalized event a book records (bench/book.js, bench/book-postgres-cpu.js).
import { createHmac } from 'node:crypto';
import { buildPayload } from 'pixhook/testing';

export const bookSecret = 'whsec_bench_book_6d2a';

/** A signed `transaction_paid` of a charge of its own (`txn_bench_<i>`), as `receive()` takes it. */
export function paidDelivery(i) {
  const payload = buildPayload('transaction_paid', {
    variant: 'b',
    seed: 7,
    id: `txn_bench_${String(i).padStart(8, '0')}`,
    amountInCents: 1990,
  });
  const body = Buffer.from(JSON.stringify(payload));
  const signature = `sha256=${createHmac('sha256', bookSecret).update(body).digest('hex')}`;
  return { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body };
}

/** A normalized `transaction_paid` of charge `id` (R$ 10,00), as a book records it. */
export const paidEvent = (id) => ({
  kind: 'transaction',
  name: 'transaction_paid',
  variant: 'b',
  source: 'webhook',
  warnings: [],
  payload: {},
  transaction: { id, status: 'paid', amountInCents: 1000, endToEndId: `E${id}` },
});
