import { onTestFinished, vi } from 'vitest';

/**
 * Fakes the clocks pixhook reads (timers, `Date`, and `performance`, which the memory store reads) for the current
 * test: a TTL lapses, a renewal fires, a wait runs out only when the test moves time on, never because a busy
 * machine was late. Call it before making the stores (the memory store keeps the `performance` it finds).
 */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  onTestFinished(() => void vi.useRealTimers());
}

/** Moves the fake clock on `stepMs` at a time (pauses and renewals fire in order) until `promise` settles. */
export async function settled<T>(promise: Promise<T>, { stepMs = 5, maxMs = 10_000 } = {}): Promise<T> {
  let done = false;
  const result = promise.finally(() => (done = true));
  for (let elapsed = 0; !done && elapsed < maxMs; elapsed += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  if (!done) throw new Error(`still pending after ${maxMs} ms of fake time`);
  return result;
}
