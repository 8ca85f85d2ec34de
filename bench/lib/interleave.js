// Runs several subjects in alternating rounds inside one process, so machine noise (other processes
// on the two cores, GC, frequency changes) hits every subject alike; ratios are taken per round.
import { median, spread } from './stats.js';

const now = () => process.hrtime.bigint();

async function timeLoop(fn, iterations, isAsync) {
  const start = now();
  if (isAsync) for (let i = 0; i < iterations; i++) await fn();
  else for (let i = 0; i < iterations; i++) fn();
  return Number(now() - start) / iterations;
}

/**
 * subjects: { name: { fn, async } }. Each round runs every subject for `iterations` calls (sized so
 * one subject's turn lasts about `sliceMs`), in an order rotated every round. Returns per-subject
 * arrays of ns/op, index-aligned by round. `calibrate` calls size the slice (fewer for slow subjects);
 * a slice makes at least `minIterations` calls.
 */
export async function interleave(subjects, { rounds, sliceMs, warmupMs, calibrate = 2000, minIterations = 200 }) {
  const names = Object.keys(subjects);
  const iterations = {};
  for (const name of names) {
    const { fn, async: isAsync } = subjects[name];
    // Warm up (JIT, caches), then size the slice from a calibration run.
    const until = performance.now() + warmupMs;
    while (performance.now() < until) await timeLoop(fn, 100, isAsync);
    const ns = await timeLoop(fn, calibrate, isAsync);
    iterations[name] = Math.max(minIterations, Math.round((sliceMs * 1e6) / ns));
  }
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const name of order) {
      const { fn, async: isAsync } = subjects[name];
      samples[name].push(await timeLoop(fn, iterations[name], isAsync));
    }
  }
  return samples;
}

/** Median over rounds of subject/baseline, each round's pair measured moments apart. */
export function pairedRatio(samples, subject, baseline) {
  return median(samples[subject].map((ns, i) => ns / samples[baseline][i]));
}

/** The per-round ratios subject/baseline as `{ median, min, max }`. */
export function pairedSpread(samples, subject, baseline) {
  return spread(samples[subject].map((ns, i) => ns / samples[baseline][i]));
}
