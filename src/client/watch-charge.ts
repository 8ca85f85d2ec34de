import { describeError } from '../shared/describe-error.js';
import { guardLogger, type Logger } from '../shared/logger.js';
import { checkTimeoutMs } from '../shared/option-checks.js';
import { resolveRetry, type RetryPolicy } from '../shared/retry-options.js';
import { PixhookConfigError, PixhookTimeoutError } from '../shared/pixhook-error.js';
import type { ChargeWatcher, ClientOptions } from './client-options.js';
import type { Sleep } from './http-transport.js';

/** Waits before each retry of a failed watch: 1 s, 5 s, 30 s, 2 min — five attempts within about 2.6 min. */
export const defaultWatchRetryDelaysMs: readonly number[] = [1_000, 5_000, 30_000, 120_000];
/** One watch attempt that has not settled after this long counts as failed. */
export const defaultWatchTimeoutMs = 5_000;

/** A failed watch: by default retried after 1 s, 5 s, 30 s and 2 min. */
export function watchRetryPolicy(options: Pick<ClientOptions, 'watchRetry'>): RetryPolicy {
  const given = options.watchRetry;
  // Only `{ attempts }` given: the default schedule's waits, its last one repeated past its end.
  const value =
    given !== null && typeof given === 'object' && !Array.isArray(given) && given.backoff === undefined
      ? { ...given, backoff: defaultWatchRetryDelaysMs }
      : (given ?? { backoff: defaultWatchRetryDelaysMs });
  return resolveRetry('watchRetry', value, { attempts: 5, backoff: { delayMs: 1_000, factor: 2, maxDelayMs: 120_000 } });
}

/**
 * What became of handing a created charge to `watch`, when the charge was returned. `ok: false` with
 * `retrying: true`: the first attempt failed and the client keeps trying in the background
 * (`watchRetry`); if every attempt fails, `onError` and the logger are told.
 */
export type ChargeWatchStatus = { ok: true; attempts: number } | { ok: false; error: unknown; attempts: number; retrying: boolean };

/** What `createClient({ onError })` receives when a created charge could not be handed to `watch`, for good. */
export interface WatchFailure {
  operation: 'watch';
  chargeId: string;
  /** The last attempt's error (a `PixhookTimeoutError` when it did not settle within `watchTimeoutMs`). */
  error: unknown;
  attempts: number;
}

interface ChargeWatching {
  /** Hands the charge to the watcher; never rejects. Failed attempts go on in the background. */
  watch(chargeId: string, createdAt: number): Promise<ChargeWatchStatus>;
}

type Outcome = { ok: true } | { ok: false; error: unknown };

/** One attempt: a watcher that rejects, throws, resolves `{ ok: false }` (a reconciler's `watch`) or hangs has failed. */
async function attempt(watcher: ChargeWatcher, chargeId: string, createdAt: number, timeoutMs: number): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: new PixhookTimeoutError(`watch(${chargeId}) did not settle within ${timeoutMs} ms`) }),
      timeoutMs,
    );
  });
  const call = (async (): Promise<Outcome> => {
    const answer: unknown = await watcher.watch(chargeId, createdAt);
    const failed = typeof answer === 'object' && answer !== null && (answer as { ok?: unknown }).ok === false;
    return failed ? { ok: false, error: (answer as { error?: unknown }).error } : { ok: true };
  })().catch((error: unknown): Outcome => ({ ok: false, error }));
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The client's side of `watch`: the charge exists whatever the watcher does, so a failure never fails
 * `createCharge`. It is shown on the result, retried in the background for a bounded time, and, when
 * every attempt failed, reported to `onError` and the logger.
 */
export function createChargeWatching(options: ClientOptions, watcher: ChargeWatcher, sleep: Sleep): ChargeWatching {
  const policy = watchRetryPolicy(options);
  const timeoutMs = checkTimeoutMs('watchTimeoutMs', options.watchTimeoutMs, defaultWatchTimeoutMs);
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new PixhookConfigError(`pixhook: \`onError\` must be a function, got a ${typeof options.onError}`);
  }
  const logger: Logger = guardLogger(options.logger);
  const onError = options.onError;

  async function report(failure: WatchFailure): Promise<void> {
    logger.error(
      { chargeId: failure.chargeId, attempts: failure.attempts, error: describeError(failure.error) },
      'pixhook client: the charge could not be watched; the reconciler will not follow it',
    );
    try {
      await onError?.(failure);
    } catch (thrown) {
      logger.warn({ chargeId: failure.chargeId, error: describeError(thrown) }, 'pixhook client: onError threw');
    }
  }

  async function retry(chargeId: string, createdAt: number, firstError: unknown): Promise<void> {
    let error = firstError;
    let attempts = 1;
    while (attempts < policy.attempts) {
      await sleep(policy.delayAfter(attempts));
      attempts++;
      const outcome = await attempt(watcher, chargeId, createdAt, timeoutMs);
      if (outcome.ok) {
        logger.info({ chargeId, attempts }, 'pixhook client: the charge is watched after a retry');
        return;
      }
      error = outcome.error;
      logger.warn({ chargeId, attempts, error: describeError(error) }, 'pixhook client: watching the charge failed again; retrying');
    }
    await report({ operation: 'watch', chargeId, error, attempts });
  }

  return {
    async watch(chargeId, createdAt) {
      const first = await attempt(watcher, chargeId, createdAt, timeoutMs);
      if (first.ok) return { ok: true, attempts: 1 };
      const retrying = policy.attempts > 1;
      if (retrying) {
        logger.warn(
          { chargeId, attempts: 1, error: describeError(first.error) },
          'pixhook client: watching the charge failed; retrying in the background',
        );
        // Never rejects: every path inside is guarded, and a sleep that rejects ends in report().
        void retry(chargeId, createdAt, first.error).catch((error: unknown) =>
          report({ operation: 'watch', chargeId, error, attempts: 1 }),
        );
      } else {
        await report({ operation: 'watch', chargeId, error: first.error, attempts: 1 });
      }
      return { ok: false, error: first.error, attempts: 1, retrying };
    },
  };
}
