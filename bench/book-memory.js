// Issue 22: receive() with a memory payment book against the same receiver without one, side by side in
// one process (alternating rounds). Target (issue 36): with a book ≤ 1.2× without. Run: `npm run build && node bench/book-memory.js [--quick]`.
import { createHmac } from 'node:crypto';
import { createReceiver, eventKey, memoryPaymentBook } from 'pixhook';
import { buildPayload } from 'pixhook/testing';
import { interleave, pairedSpread } from './lib/interleave.js';
import { median, quick, round, showRatio } from './lib/stats.js';

const secret = 'whsec_bench_book_6d2a';
// Many charges, each paid once (a second payment would be the book's duplicate): the book keeps a resource per charge.
const charges = quick ? 20_000 : 100_000;
const delivery = (i) => {
  const payload = buildPayload('transaction_paid', {
    variant: 'b',
    seed: 7,
    id: `txn_bench_${String(i).padStart(8, '0')}`,
    amountInCents: 1990,
  });
  const bytes = Buffer.from(JSON.stringify(payload));
  const signature = `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;
  return { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body: bytes };
};
const bodies = Array.from({ length: charges }, (_, i) => delivery(i));

/** A receiver whose every delivery reaches the claim (a counter in the key), cycling through the charges. */
function subject(options) {
  let n = 0;
  const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n}`, ...options }).onAny(() => {});
  return {
    async: true,
    async fn() {
      // Past the prepared charges (a fast machine), fresh ones are signed here: each charge is still paid once.
      const i = n++;
      const request = i < charges ? bodies[i] : delivery(i);
      const result = await receiver.receive(request);
      if (result.status !== 200 || result.reason !== undefined) throw new Error(`answered ${result.status} ${result.reason}`);
    },
  };
}

const book = memoryPaymentBook();
const samples = await interleave(
  { 'receive()': subject({}), 'receive() with a memory book': subject({ book }) },
  quick ? { rounds: 5, sliceMs: 40, warmupMs: 100 } : { rounds: 15, sliceMs: 250, warmupMs: 1_000 },
);
const ratio = pairedSpread(samples, 'receive() with a memory book', 'receive()');
const out = {
  bare_ns: round(median(samples['receive()']), 0),
  book_ns: round(median(samples['receive() with a memory book']), 0),
  book_vs_bare: ratio,
  ok: ratio.median <= 1.2,
  resources: book.size,
};
console.error(
  `receive() with a memory book vs without: ${showRatio(ratio)} (target ≤ 1.2×); ${out.bare_ns} ns vs ${out.book_ns} ns per delivery`,
);
console.log(JSON.stringify(out));
