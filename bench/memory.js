// Section 4: heap bytes per key of the in-memory dedupe store (run with --expose-gc), and its bound.
import { eventKey, memoryDedupeStore } from 'pixhook';
import { quick, round } from './lib/stats.js';

if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');

function heapAfterGc() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

// Keys as a receiver makes them: the default dedupeKey over a resource whose id came out of JSON.parse.
function key(i) {
  const transaction = JSON.parse(`{"id":"txn_${i.toString(36).padStart(20, '0')}","status":"paid","amountInCents":1990}`);
  return eventKey({ kind: 'transaction', name: 'transaction_paid', transaction });
}

/** Claims and completes `count` distinct keys (the steady state of a busy receiver) in a store of `max`. */
async function fill(count, max) {
  const before = heapAfterGc();
  const store = memoryDedupeStore({ max });
  for (let i = 0; i < count; i++) {
    const k = key(i);
    await store.claim(k, 'o', 60_000);
    await store.complete(k, 'o', 86_400_000);
  }
  const after = heapAfterGc();
  return { store, bytes: after - before };
}

const sizes = quick ? [10_000, 50_000] : [100_000, 1_000_000];
const out = { sizes: {} };
for (const n of sizes) {
  const { store, bytes } = await fill(n, n);
  out.sizes[n] = { keys: store.size, heapBytes: bytes, bytesPerKey: round(bytes / n, 1) };
}
// Bounded: the default-sized store (max 100 000) given 10× its max keeps max keys and the same heap.
const max = quick ? 10_000 : 100_000;
const bounded = await fill(max * 10, max);
out.bounded = {
  max,
  inserted: max * 10,
  keys: bounded.store.size,
  heapBytes: bounded.bytes,
  heapVsFull: round(bounded.bytes / out.sizes[max].heapBytes, 3),
};
out.bytesPerKey = Math.max(...Object.values(out.sizes).map((s) => s.bytesPerKey));
console.log(JSON.stringify(out));
