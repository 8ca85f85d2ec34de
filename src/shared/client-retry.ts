import type { Logger } from './logger.js';
import type { RetryPolicy } from './retry-options.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A client call that failed: no answer (`status` undefined), or an HTTP error answer. */
interface FailedCall {
  operation: string;
  /** Whether repeating the call can never do the work twice (see each transport's `retrySafe`). */
  retrySafe: boolean;
  /** Retries made so far. */
  retries: number;
  status?: number | undefined;
  /** A 429's wait as the server asked for it, in ms. */
  hintMs?: number | undefined;
  /** Thrown when the server asks for a wait longer than the policy's longest. */
  error?: Error | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * The retry rule of pixhook's HTTP clients (the gateway's and API Pix's): a call safe to repeat is retried on no
 * answer, a 429 or a 5xx while the policy has attempts left, after the policy's wait or longer when the server asked
 * for it. A wait longer than the policy's longest is the caller's decision, not a hidden stall: `error` is thrown. The
 * wait is logged before it is slept, so a call stalled on a 429 (a token, a read) is never silent. True when it waited
 * (the caller retries), false when the failure is final.
 */
export async function waitToRetry(deps: { retry: RetryPolicy; sleep: Sleep; logger: Logger }, call: FailedCall): Promise<boolean> {
  const { status } = call;
  const retryable = status === undefined || status === 429 || status >= 500;
  if (!retryable || !call.retrySafe || call.retries >= deps.retry.attempts - 1) return false;
  if (call.hintMs !== undefined && call.hintMs > deps.retry.maxDelayMs && call.error !== undefined) throw call.error;
  const retry = call.retries + 1;
  const cause = status === undefined ? 'got no answer' : `answered ${status}`;
  const waitMs = Math.max(call.hintMs ?? 0, deps.retry.delayAfter(retry));
  deps.logger.warn(
    { operation: call.operation, cause, waitMs, retry, retries: deps.retry.attempts - 1 },
    `pixhook client: ${call.operation} ${cause}; retry ${retry} of ${deps.retry.attempts - 1} in ${waitMs} ms`,
  );
  await deps.sleep(waitMs, call.signal);
  return true;
}
