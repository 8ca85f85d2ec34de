import { checkDelayMs, checkInteger, checkTimeoutMs, describeGiven, refuseRenamed } from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions, type RetryPolicy } from '../shared/retry-options.js';
import { watchRetryPolicy } from './watch-charge.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { FetchLike, Sleep } from './http-transport.js';
import type { Logger } from '../shared/logger.js';
import type { WatchFailure } from './watch-charge.js';
import type { ReadBudget } from './read-budget.js';
import type { ExpectedCharge } from '../index.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** What `createClient({ book })` needs of a payment book: `expect` (every pixhook payment book has it). */
export interface ExpectingBook {
  expect(charge: ExpectedCharge): Promise<void>;
}

/** Something that follows charges to a final status: a `pixhook/reconcile` reconciler or its watch store. */
export interface ChargeWatcher {
  watch(chargeId: string, createdAt?: number): unknown;
}

export interface ClientOptions {
  apiKey: string;
  apiSecret: string;
  /** e.g. `https://api.gateway.example` (no trailing path). */
  baseUrl: string;
  /**
   * Which documented rules requests follow. `a` (default): charges from 100 cents, customer phone
   * required. `b`: charges from 1 cent, phone optional.
   */
  variant?: 'a' | 'b';
  /** Overrides the variant's minimum charge amount. */
  minChargeAmountInCents?: number;
  /** Transfer body fields: `both` (default: `amount` + `currency` + `amountInCents` + `pixKeyType`), `a` or `b`. */
  transferBody?: 'both' | 'a' | 'b';
  /**
   * Runs of a safe call (the first included) on 429, 5xx or a dropped connection, and the waits
   * between them. Default `{ attempts: 4, backoff: { delayMs: 500, factor: 2, maxDelayMs: 60000 } }`.
   * A `Retry-After` longer than the longest wait is thrown, not waited for.
   */
  retry?: RetryOptions;
  /** Renew the token this long before it expires. Default 60 000 ms (the interface's advice). */
  renewBeforeMs?: number;
  /** Abort one HTTP request after this long. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** For tests and other runtimes. Default: global `fetch`. */
  fetch?: FetchLike;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Default: a timer that rejects when the signal aborts. */
  sleep?: Sleep;
  /**
   * Every charge created is handed to it (`watch(id, createdAt)`), so a reconciler follows it even if
   * its webhook never arrives. A watcher that fails never fails the charge: the result's `watch` says
   * so, the client retries it in the background (`watchRetry`), and a watch that never succeeds
   * reaches `onError` and the logger. It fails when it throws, rejects, resolves `{ ok: false }` (as a
   * reconciler's `watch` does) or does not settle within `watchTimeoutMs`.
   */
  watch?: ChargeWatcher;
  /**
   * Runs of a failed watch, and the waits before each retry. Default `{ backoff: [1000, 5000, 30000, 120000] }`
   * (5 attempts within about 2.6 min); `{ attempts: 1 }`: no retry.
   */
  watchRetry?: RetryOptions;
  /** One watch attempt that has not settled by then has failed. Default 5 000 ms (1 ms–24 h). */
  watchTimeoutMs?: number;
  /** Told when a created charge could not be handed to `watch` after every retry (it will not be reconciled). */
  onError?: (failure: WatchFailure) => void | Promise<void>;
  /**
   * pino-compatible; each wait before a call is retried (a 429, a 5xx, no answer) is logged (warn), so is a
   * failed watch attempt; a watch given up on is logged as an error.
   */
  logger?: Logger;
  /** Default `crypto.randomUUID`. */
  generateIdempotencyKey?: () => string;
  /**
   * Reads of the gateway (`getTransaction`, `waitForTransactionStatus`) allowed per minute, shared by
   * whatever uses this client: the reconciler, a receiver's `confirm`, the merchant's own calls
   * (`readBudget({ perMinute })`; one budget can serve several clients of one account). Each HTTP attempt
   * takes one read; once spent, a read fails at once with `PixRateLimitedError` (`apiCode`
   * `READ_BUDGET_SPENT`, `retryAfter` in seconds). Default: none (only the gateway's own limit).
   */
  readBudget?: ReadBudget;
  /**
   * The payment book: every charge created is expected in it (`book.expect({ id, amountInCents,
   * payerDocument, expiresAt? })`, the payer being the charge's customer). A book that fails never fails
   * the charge: the result's `expected` says so and the logger hears it (error).
   */
  book?: ExpectingBook;
}

/** Refuses numeric and choice options that cannot work (one message format: see `option-checks`). */
export function checkClientOptions(options: ClientOptions): void {
  if (options.variant !== undefined && options.variant !== 'a' && options.variant !== 'b') {
    throw new PixhookConfigError(`pixhook: \`variant\` must be "a" or "b", got ${describeGiven(options.variant)}`);
  }
  if (options.transferBody !== undefined && !['both', 'a', 'b'].includes(options.transferBody)) {
    throw new PixhookConfigError(`pixhook: \`transferBody\` must be "both", "a" or "b", got ${describeGiven(options.transferBody)}`);
  }
  if (options.minChargeAmountInCents !== undefined)
    checkInteger('minChargeAmountInCents', options.minChargeAmountInCents, 1, Number.MAX_SAFE_INTEGER);
  refuseRenamed(options, clientRetryRenames);
  refuseUnknownOptions(options, clientOptionNames, 'createClient');
  watchRetryPolicy(options);
  if (options.renewBeforeMs !== undefined) checkDelayMs('renewBeforeMs', options.renewBeforeMs);
  if (options.requestTimeoutMs !== undefined) checkTimeoutMs('requestTimeoutMs', options.requestTimeoutMs);
  if (options.readBudget !== undefined && typeof (options.readBudget as { take?: unknown } | null)?.take !== 'function') {
    throw new PixhookConfigError(
      `pixhook: \`readBudget\` must be a read budget (readBudget({ perMinute })), got ${describeGiven(options.readBudget)}`,
    );
  }
  if (options.book !== undefined && typeof (options.book as { expect?: unknown } | null)?.expect !== 'function') {
    throw new PixhookConfigError(`pixhook: \`book\` must be a payment book (e.g. memoryPaymentBook()), got ${describeGiven(options.book)}`);
  }
}

const clientRetryRenames = {
  maxRetries: '`retry: { attempts }` (attempts = maxRetries + 1)',
  retryBaseDelayMs: '`retry: { backoff: { delayMs } }`',
  maxRetryDelayMs: '`retry: { backoff: { maxDelayMs } }`',
  watchRetryDelaysMs: '`watchRetry: { backoff: [ms, …] }` (`watchRetry: { attempts: 1 }` for no retry)',
};

/** Safe calls: 4 runs in all (3 retries), waits 500 ms doubling up to 1 min. */
export function clientRetryPolicy(options: ClientOptions): RetryPolicy {
  return resolveRetry('retry', options.retry, { attempts: 4, backoff: { delayMs: 500, factor: 2, maxDelayMs: 60_000 } });
}

/**
 * Every option createClient takes, and `webhookSecret`: `createClient({ ...emulator.credentials, baseUrl })`
 * (the documented way to point a client at the emulator) spreads the receiver's secret too. It names no
 * client option, so no typo of one hides behind it; the client has no use for it.
 */
const clientOptionNames = [
  'webhookSecret',
  ...optionNames<ClientOptions>()([
    'apiKey',
    'apiSecret',
    'baseUrl',
    'variant',
    'minChargeAmountInCents',
    'transferBody',
    'retry',
    'renewBeforeMs',
    'requestTimeoutMs',
    'fetch',
    'now',
    'sleep',
    'watch',
    'watchRetry',
    'watchTimeoutMs',
    'onError',
    'logger',
    'generateIdempotencyKey',
    'readBudget',
    'book',
  ]),
];
