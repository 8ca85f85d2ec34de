// Prototype ablations for the rest of the core's fixed cost: the HMAC key set up per call, and the
// strict UTF-8 decode. node bench/prototypes/micro-crypto.js [--quick] → one JSON line.
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { interleave, pairedRatio } from '../lib/interleave.js';
import { bodies, secret } from '../lib/payloads.js';
import { median, quick, round } from '../lib/stats.js';

const { bytes, digest } = bodies.b350;
const given = Buffer.from(digest, 'hex');
const key = createSecretKey(Buffer.from(secret));
const decoder = new TextDecoder('utf-8', { fatal: true });
const subjects = {
  'hmac: string secret per call': { fn: () => timingSafeEqual(createHmac('sha256', secret).update(bytes).digest(), given) },
  'hmac: KeyObject made once': { fn: () => timingSafeEqual(createHmac('sha256', key).update(bytes).digest(), given) },
  'utf8: TextDecoder fatal': { fn: () => JSON.parse(decoder.decode(bytes)) },
  'utf8: isUtf8 + toString': {
    fn() {
      if (!isUtf8(bytes)) throw new Error('utf8');
      return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    },
  },
};
const samples = await interleave(subjects, quick ? { rounds: 3, sliceMs: 5, warmupMs: 50 } : { rounds: 30, sliceMs: 20, warmupMs: 300 });
const ns = Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, round(median(s), 0)]));
console.log(JSON.stringify({ ns, ratios: {
  hmac_keyobject_vs_string: round(pairedRatio(samples, 'hmac: KeyObject made once', 'hmac: string secret per call'), 3),
  utf8_isutf8_vs_textdecoder: round(pairedRatio(samples, 'utf8: isUtf8 + toString', 'utf8: TextDecoder fatal'), 3),
} }));
