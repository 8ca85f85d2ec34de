/** A source of numbers in [0, 1); seeded ones make fixtures reproducible. */
export type RandomSource = () => number;

/** mulberry32: tiny, fast and good enough for fixtures (never for secrets). */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded source when a seed is given, otherwise one seeded from Web Crypto (edge-safe). */
export function randomSource(seed?: number): RandomSource {
  if (seed !== undefined) return seededRandom(seed);
  return seededRandom(globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number);
}

export function randomInt(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: RandomSource, items: ArrayLike<T>): T {
  return items[Math.floor(random() * items.length)] as T;
}

const alphanumerics = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const digitChars = '0123456789';

export function randomAlphanumerics(random: RandomSource, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += pick(random, alphanumerics);
  return out;
}

export function randomDigits(random: RandomSource, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += pick(random, digitChars);
  return out;
}
