/** One clock for the client and the emulator: `sleep` moves it forward at once, so tests never wait. */
export function fakeClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    sleeps,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
    },
  };
}

export { customer } from '../helpers/customer.js';
