import type { JournalWriter } from '../journal/journal-writer.js';
import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import { maxDelayMs } from '../shared/option-checks.js';
import type { Acknowledgement } from './acknowledgement.js';
import { raceDeadline } from './inline-mode.js';

/** Everything one processing still has running, and the wait for it (`drain`). */
interface WorkTracker {
  /** Work after the answer: tracked for `drain()` and handed to `waitUntil` (the processing's option by default). */
  keepAlive(work: Promise<unknown>, waitUntil?: (promise: Promise<unknown>) => void): void;
  /** Work the caller still waits for (an answer not given yet): tracked for `drain()` only. */
  track(work: Promise<unknown>): void;
  /** True once everything tracked, the mode's queue and the journal's writes settled; false past `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean>;
}

export function createWorkTracker(input: {
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  log: Logger;
  acknowledgement: Acknowledgement;
  writer: () => JournalWriter | undefined;
}): WorkTracker {
  const pending = new Set<Promise<unknown>>();
  const { log, acknowledgement } = input;

  function track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
  }

  return {
    track,
    keepAlive(work, waitUntil = input.waitUntil) {
      track(work);
      if (!waitUntil) return;
      try {
        waitUntil(work);
      } catch (error) {
        log.error({ error: describeError(error) }, 'pixhook: waitUntil threw; the work goes on unguarded');
      }
    },
    async drain(timeoutMs) {
      const giveUpAt = Date.now() + timeoutMs;
      const writer = input.writer();
      while (pending.size > 0 || acknowledgement.size > 0 || writer?.busy === true) {
        const left = giveUpAt - Date.now();
        if (left <= 0) return false;
        const settled = Promise.all([...pending, acknowledgement.idle(), writer?.idle()]);
        // One wait stays within a timer's range; the loop waits again until `giveUpAt`.
        if ((await raceDeadline(settled, Math.min(left, maxDelayMs))) === 'deadline' && left <= maxDelayMs) return false;
      }
      return true;
    },
  };
}
