import type { Logger } from './logger.js';
import type { RetryPolicy } from './retry-options.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The wait before a client call's retry `retry` (1-based): the policy's, or longer when the server asked for it
 * (`hintMs`). It is logged before it is slept, so a call stalled on a 429 (a token, a read) is never silent.
 */
export function loggedRetryWait(
  deps: { retry: RetryPolicy; sleep: Sleep; logger: Logger },
  call: { operation: string; cause: string; retry: number; hintMs?: number | undefined; signal?: AbortSignal | undefined },
): Promise<void> {
  const waitMs = Math.max(call.hintMs ?? 0, deps.retry.delayAfter(call.retry));
  deps.logger.warn(
    { operation: call.operation, cause: call.cause, waitMs, retry: call.retry, retries: deps.retry.attempts - 1 },
    `pixhook client: ${call.operation} ${call.cause}; retry ${call.retry} of ${deps.retry.attempts - 1} in ${waitMs} ms`,
  );
  return deps.sleep(waitMs, call.signal);
}
