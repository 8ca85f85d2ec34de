// The deliveries of bench/book-memory.js and bench/book-memory-cpu.js: charge `i` paid once, signed.
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
