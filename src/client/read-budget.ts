import { checkFunction, checkInteger } from '../shared/option-checks.js';

// One budget for every read of one gateway account. It is held by the client (`createClient({ readBudget })`)
// because the gateway counts reads per account, whichever part of the app sends them: the reconciler, the
// receiver's `confirm` and the merchant's own `getTransaction` calls all draw from it when they share the client
// (or clients sharing one budget). A spent budget is a local 429, which the reconciler already honors by
// pausing and `confirm` answers as 503 `gateway_unavailable`; the reconciler's `querySharePerMinute` keeps
// the rest of the budget for `confirm` and the merchant.

export interface ReadBudgetOptions {
  /** Reads allowed in any 60-second window. */
  perMinute: number;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

export interface ReadBudget {
  readonly perMinute: number;
  /** Takes one read: 0 when granted, else how many milliseconds until one is free (nothing is taken). */
  take(): number;
  /** Reads still free in the current window. */
  remaining(): number;
}

const windowMs = 60_000;

/** A sliding one-minute window of reads, in this process. */
export function readBudget(options: ReadBudgetOptions): ReadBudget {
  const perMinute = checkInteger('readBudget.perMinute', options?.perMinute, 1, 1_000_000);
  const now = options.now === undefined ? Date.now : checkFunction<() => number>('readBudget.now', options.now);
  // The times of the reads in the window, oldest first: never more than `perMinute` of them.
  const taken: number[] = [];
  let head = 0;

  function expire(at: number): void {
    while (head < taken.length && (taken[head] as number) <= at - windowMs) head++;
    // Compact now and then, so the array stays bounded by `perMinute`.
    if (head > 1024 && head * 2 > taken.length) {
      taken.splice(0, head);
      head = 0;
    }
  }

  return {
    perMinute,
    take() {
      const at = now();
      expire(at);
      if (taken.length - head < perMinute) {
        taken.push(at);
        return 0;
      }
      return Math.max(1, (taken[head] as number) + windowMs - at);
    },
    remaining() {
      expire(now());
      return perMinute - (taken.length - head);
    },
  };
}
