/** Waits between reads of a charge that is not final yet: 5 min, 15 min, then hourly (the last repeats). */
export const defaultBackoffMs: readonly number[] = [5 * 60_000, 15 * 60_000, 60 * 60_000];

/** When to read a charge again after its `checks`-th read. */
export function nextCheckAt(now: number, checks: number, backoffMs: readonly number[]): number {
  const index = Math.min(Math.max(checks, 1), backoffMs.length) - 1;
  return now + (backoffMs[index] as number);
}

/** Reads a charge gets at most when it never becomes final (the first at `minAgeMs`, the last before `maxAgeMs`). */
export function maxReadsPerCharge(minAgeMs: number, maxAgeMs: number, backoffMs: readonly number[]): number {
  let at = minAgeMs;
  let reads = 0;
  while (at < maxAgeMs) {
    reads++;
    at = nextCheckAt(at, reads, backoffMs);
  }
  return reads;
}
