import { PixWaitTimeoutError } from './client-errors.js';
import type { Sleep } from './http-transport.js';
import type { TransactionRecord } from './transaction-schemas.js';

export interface WaitForStatusOptions {
  /** The status (or any of the statuses) to wait for, e.g. `paid`. */
  status: string | readonly string[];
  /** Between two reads. Default 3 000 ms, as the interface's polling example. */
  intervalMs?: number;
  /** Give up after this long. Default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface WaitDeps {
  read: (signal: AbortSignal | undefined) => Promise<TransactionRecord>;
  now: () => number;
  sleep: Sleep;
}

/** Polls until the record reaches one of the statuses; rejects with `PixWaitTimeoutError` or the signal's reason. */
export async function waitForStatus(id: string, options: WaitForStatusOptions, deps: WaitDeps): Promise<TransactionRecord> {
  const wanted = new Set(typeof options.status === 'string' ? [options.status] : options.status);
  const intervalMs = options.intervalMs ?? 3000;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const deadline = deps.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const record = await deps.read(options.signal);
    last = record.status;
    if (wanted.has(record.status)) return record;
    const left = deadline - deps.now();
    if (left <= 0) {
      throw new PixWaitTimeoutError(
        `transaction ${id} did not reach ${[...wanted].join(' or ')} within ${timeoutMs} ms (last status: ${last})`,
        last,
      );
    }
    await deps.sleep(Math.min(intervalMs, left), options.signal);
  }
}
