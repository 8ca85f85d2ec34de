/**
 * True when `given` equals `expected`, in time that depends only on `expected`'s length: both sides are
 * compared byte by byte over the longer length, so a wrong guess learns nothing from when it failed.
 * (Convoy's `!=` on tokens is the pitfall this avoids: SOURCES.md § Anchors.)
 */
export function sameText(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** True when `a` and `b` hold the same bytes (the lengths are public: a digest's), in time independent of where they differ. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const encoder = new TextEncoder();
