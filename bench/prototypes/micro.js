// Prototype ablations, in one process with alternating rounds (like section 1): each pair is today's
// piece of the core against its lean replacement, on the 405-byte Variant B body. `--quick` for a moment.
// node bench/prototypes/micro.js [--quick]   → one JSON line: ns per op and ratios.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ownerless } from './lean-node.js';
import { memoryDedupeStore } from '../../dist/src/dedupe/memory-dedupe-store.js';
import { normalizeEvent } from '../../dist/src/events/normalize-event.js';
import { createReceiver, defaultDedupeKey } from '../../dist/src/index.js';
import { parseJson } from '../../dist/src/intake/parse-json.js';
import { verifySignatureNow } from '../../dist/src/signature/verify-signature.js';
import { interleave, pairedRatio } from '../lib/interleave.js';
import { bodies, secret } from '../lib/payloads.js';
import { median, quick, round } from '../lib/stats.js';
import { coarseDeadlines } from './coarse-deadlines.js';
import { handCheckedEvent } from './hand-checked-event.js';
import { mapDedupeStore } from './map-dedupe-store.js';

const { bytes, signature } = bodies.b350;
const parsed = JSON.parse(bodies.b350.text);
const deadlines = coarseDeadlines();
let n = 0;
const shipped = ownerless(memoryDedupeStore({ max: 100_000 }));
const map = mapDedupeStore({ max: 100_000 });
const receiver = createReceiver({ secret, dedupeKey: (event) => `${defaultDedupeKey(event)}#${n++}` }).onAny(() => {});
const request = { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body: bytes };
const syncStore = ownerless(memoryDedupeStore({ max: 100_000 }));
const handler = () => {};

/** The core's work called synchronously, with the essentials reader and the store under test. */
function syncPipeline(readEvent, store) {
  if (!verifySignatureNow({ body: bytes, signature, secret }).ok) throw new Error('sig');
  const json = parseJson(bytes);
  const e = readEvent(json.value);
  const key = `${defaultDedupeKey(e.event)}#${n++}`;
  if (store.claim(key, 60_000) !== 'claimed') throw new Error('claim');
  handler(e.event);
  store.complete(key, 86_400_000);
}

const subjects = {
  // Deadline per inline request: a timer armed and cleared, vs a bucket in one shared wheel.
  'timer: setTimeout+clearTimeout': { fn: () => clearTimeout(setTimeout(handler, 8000)) },
  'timer: coarse wheel add+cancel': { fn: () => deadlines.add(8000, handler)() },
  // One claim + complete of a new key, the store full at its max (steady state).
  'store: memoryDedupeStore (two Maps) claim+complete': {
    fn() {
      const k = `txn_${n++}`;
      shipped.claim(k, 60_000);
      shipped.complete(k, 86_400_000);
    },
  },
  'store: Map + signed expiry claim+complete': {
    fn() {
      const k = `txn_${n++}`;
      map.claim(k, 60_000);
      map.complete(k, 86_400_000);
    },
  },
  // The essentials of an already parsed body.
  'normalize: normalizeEvent (shipped, hand-written reader)': {
    fn() {
      if (!normalizeEvent(parsed).ok) throw new Error('normalize');
    },
  },
  'normalize: hand-checked': {
    fn() {
      if (!handCheckedEvent(parsed).ok) throw new Error('hand');
    },
  },
  // The whole core: today's receive() (async pipeline, deadline race, answer object) vs the same
  // internals called synchronously (verify, parse, normalize, claim, no-op handler, complete), vs the limit.
  'core: receive()': {
    async: true,
    async fn() {
      const r = await receiver.receive(request);
      if (r.status !== 200) throw new Error(String(r.status));
    },
  },
  'core: sync pipeline, same internals': { fn: () => syncPipeline(normalizeEvent, syncStore) },
  'core: sync pipeline, hand-checked + Map store': { fn: () => syncPipeline(handCheckedEvent, map) },
  'core: limit': {
    fn() {
      const given = Buffer.from(signature.slice(7), 'hex');
      const expected = createHmac('sha256', secret).update(bytes).digest();
      if (!timingSafeEqual(expected, given)) throw new Error('limit');
      return JSON.parse(bytes.toString('utf8'));
    },
  },
};

// Fill both stores to their max first, so every claim also evicts (the steady state).
for (let i = 0; i < 100_000; i++) {
  shipped.claim(`fill_${i}`, 60_000);
  map.claim(`fill_${i}`, 60_000);
  syncStore.claim(`fill_${i}`, 60_000);
}

const options = quick ? { rounds: 3, sliceMs: 5, warmupMs: 50 } : { rounds: 30, sliceMs: 20, warmupMs: 300 };
const samples = await interleave(subjects, options);
const ns = Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, round(median(s), 0)]));
const r = (a, b) => round(pairedRatio(samples, a, b), 3);
console.log(
  JSON.stringify({
    ns,
    ratios: {
      timer_coarse_vs_settimeout: r('timer: coarse wheel add+cancel', 'timer: setTimeout+clearTimeout'),
      store_signed_map_vs_shipped: r('store: Map + signed expiry claim+complete', 'store: memoryDedupeStore (two Maps) claim+complete'),
      normalize_prototype_vs_shipped: r('normalize: hand-checked', 'normalize: normalizeEvent (shipped, hand-written reader)'),
      receive_vs_limit: r('core: receive()', 'core: limit'),
      sync_pipeline_vs_limit: r('core: sync pipeline, same internals', 'core: limit'),
      sync_lean_vs_limit: r('core: sync pipeline, hand-checked + Map store', 'core: limit'),
    },
  }),
);
