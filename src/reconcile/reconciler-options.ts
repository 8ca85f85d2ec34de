import { PixhookConfigError, type Logger, type PixEvent, type PixEventName, type PixhookError } from '../index.js';
import { defaultBackoffMs } from './check-schedule.js';
import { defaultStatusEvents, type ReadTransaction, type ReconcileVariant } from './recovered-event.js';
import type { WatchStore } from './watch-store.js';
import { memoryWatchStore } from './memory-watch-store.js';
import {
  checkFunction,
  checkInteger,
  checkNumber,
  checkOneOf,
  checkTimeoutMs,
  checkTtlMs,
  maxDelayMs,
  maxTtlMs,
  optionalNumber,
  refuseRenamed,
} from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions, type RetryPolicy } from '../shared/retry-options.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** What the reconciler needs of `pixhook/client` (a `PixClient` fits). */
export interface ReconcilerClient {
  getTransaction(id: string, options?: { signal?: AbortSignal }): Promise<ReadTransaction>;
  /** The last `X-RateLimit-*` figures the client saw: the reconciler leaves the merchant's share alone. */
  rateLimit?(): { operation: string; limit: number | undefined; remaining: number | undefined; resetAt: number | undefined } | undefined;
  /** The gateway's variant (`createClient({ variant })`): the reconciler's default `variant`. */
  readonly variant?: string;
}

/** A charge the reconciler could not turn into its event: counted in `failed`, logged, and read again later. */
export interface ReconcileFailure {
  /**
   * `record_unreadable`: the gateway's record could not be read (the client refused it), or its status is
   * final but it lacks what an event needs (an integer amount).
   */
  reason: 'record_unreadable';
  chargeId: string;
  /** The record's status, when it could be read. */
  status?: string;
  /** A `PixhookError` with code `response_invalid`; its message names the field and its type, never its value. */
  error: PixhookError;
}

/** What the reconciler needs of a `Processing` (`createProcessing()` fits): the same handlers and dedupe as the webhook. */
export interface ReconcilerProcessing {
  accept(event: PixEvent): Promise<{ reason?: string; key?: string; hint?: string }>;
}

/** A charge from the merchant's own list. `createdAt`: epoch milliseconds, a Date or an ISO string. */
export interface PendingCharge {
  chargeId: string;
  createdAt?: number | Date | string;
}

export interface ReconcilerOptions {
  client: ReconcilerClient;
  /** Not with `client`: `createReconciler({ apiPix })` is the API Pix listing reconciler. */
  apiPix?: never;
  processing: ReconcilerProcessing;
  /** Where the watch list and schedule live. Default: `memoryWatchStore()`. */
  watchStore?: WatchStore;
  /** The merchant's own list of unresolved charges, read at each run and added to the watch list. */
  listPending?: () => Iterable<PendingCharge> | AsyncIterable<PendingCharge> | Promise<Iterable<PendingCharge>>;
  /** First read this long after creation (the webhook usually arrives before). Default 120 000 (2 min). */
  minAgeMs?: number;
  /** Stop following a charge this long after creation. Default 172 800 000 (48 h). */
  maxAgeMs?: number;
  /** `start()` runs every this often. Default 60 000. */
  everyMs?: number;
  /** Charges leased per run. Default 50. */
  batch?: number;
  /** Reads in flight at once. Default 4. */
  concurrency?: number;
  /**
   * The check schedule: waits between reads of a charge still pending, the last repeating until
   * `maxAgeMs`. Default `{ backoff: [300000, 900000, 3600000] }` (5 min, 15 min, then hourly); an
   * exponential `{ backoff: { delayMs, factor, maxDelayMs } }` works too. No `attempts`: a charge is
   * read until it is final or `maxAgeMs` has passed. Each wait is at least 1 ms.
   */
  retry?: RetryOptions;
  /** The gateway's query limit per minute. Default 100 (Variant A). */
  queryLimitPerMinute?: number;
  /** The share of it the reconciler may spend (0–1), across every reconciler on the store. Default 0.5. */
  querySharePerMinute?: number;
  /** How long a run holds a charge. Default 60 000. */
  leaseMs?: number;
  /** The event a final status becomes; undefined: not final. Default: `defaultStatusEvents` (paid, refunded, canceled, expired). */
  eventFor?: (status: string) => PixEventName | undefined;
  /**
   * The shape of the gateway's webhooks, so a recovered event is the one that variant's webhook carries
   * (same `variant`, payload shape and dedupe key): `a`, `b`, or `short` (no refund details, so no refund
   * part in the key). Default: the client's `variant` (`createClient({ variant })`), else `a`. Set `short`
   * yourself when the gateway sends the short form: the client cannot tell it from `b`.
   */
  variant?: ReconcileVariant;
  /** Called for each charge counted in `failed` that needs a person: a final status the record cannot make an event from. */
  onError?: (failure: ReconcileFailure) => void | Promise<void>;
  /** Called for each event handed to processing and handled (not for duplicates). */
  onRecovered?: (event: PixEvent, result: { key?: string }) => void;
  logger?: Logger;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

type ResolvedReconcilerOptions = Required<
  Omit<ReconcilerOptions, 'apiPix' | 'listPending' | 'onRecovered' | 'logger' | 'onError' | 'retry'>
> &
  Pick<ReconcilerOptions, 'listPending' | 'onRecovered' | 'logger' | 'onError'> & { retry: RetryPolicy };

const variants: readonly string[] = ['a', 'b', 'short'];

function variantOf(options: ReconcilerOptions): ReconcileVariant {
  if (options.variant !== undefined) {
    return checkOneOf('variant', options.variant, variants) as ReconcileVariant;
  }
  const fromClient = options.client.variant;
  return typeof fromClient === 'string' && variants.includes(fromClient) ? (fromClient as ReconcileVariant) : 'a';
}

export function resolveReconcilerOptions(options: ReconcilerOptions): ResolvedReconcilerOptions {
  checkFunction('client.getTransaction', options.client?.getTransaction, 'a function (`client` is a pixhook/client PixClient)');
  checkFunction('processing.accept', options.processing?.accept, 'a function (`processing` is what createProcessing() returns)');
  refuseRenamed(options, { backoffMs: '`retry: { backoff: [ms, …] }` (the check schedule)' });
  refuseUnknownOptions(options, reconcilerOptionNames, 'createReconciler');
  const retry = checkSchedule(options.retry);
  const now = options.now ?? Date.now;
  const maxAgeMs = checkTtlMs('maxAgeMs', options.maxAgeMs, 48 * 3_600_000);
  const minAgeMs = checkInteger('minAgeMs', options.minAgeMs, 0, maxTtlMs, 120_000);
  if (minAgeMs >= maxAgeMs) {
    throw new PixhookConfigError(
      `pixhook: \`minAgeMs\` must be less than \`maxAgeMs\` (${maxAgeMs}), got ${minAgeMs}: no charge would ever be read.`,
    );
  }
  return {
    client: options.client,
    processing: options.processing,
    watchStore: options.watchStore ?? memoryWatchStore({ now }),
    minAgeMs,
    maxAgeMs,
    everyMs: checkTimeoutMs('everyMs', options.everyMs, 60_000),
    batch: checkInteger('batch', options.batch, 1, 10_000, 50),
    concurrency: checkInteger('concurrency', options.concurrency, 1, 100, 4),
    retry,
    queryLimitPerMinute: checkInteger('queryLimitPerMinute', options.queryLimitPerMinute, 1, 100_000, 100),
    querySharePerMinute: optionalNumber('querySharePerMinute', options.querySharePerMinute, 0.5, { min: 0.01, max: 1, integer: false }),
    leaseMs: checkTimeoutMs('leaseMs', options.leaseMs, 60_000),
    eventFor: options.eventFor ?? ((status) => (Object.hasOwn(defaultStatusEvents, status) ? defaultStatusEvents[status] : undefined)),
    variant: variantOf(options),
    now,
    ...(options.listPending && { listPending: options.listPending }),
    ...(options.onRecovered && { onRecovered: options.onRecovered }),
    ...(options.logger && { logger: options.logger }),
    ...(options.onError && { onError: options.onError }),
  };
}

/** The check schedule: a wait of 0 would read a pending charge in a loop, and `attempts` has no meaning here. */
function checkSchedule(value: RetryOptions | undefined): RetryPolicy {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return resolveRetry('retry', value, scheduleDefaults);
  if (value.attempts !== undefined) {
    throw new PixhookConfigError(
      'pixhook: `retry.attempts` does not apply to the reconciler: it reads a charge until it is final or `maxAgeMs` has passed; remove it (or lower `maxAgeMs`).',
    );
  }
  const backoff = value.backoff ?? defaultBackoffMs;
  if (Array.isArray(backoff)) {
    if (backoff.length === 0)
      throw new PixhookConfigError('pixhook: `retry.backoff` must list at least one wait for the reconciler, got an empty list');
    (backoff as readonly unknown[]).forEach((ms, i) => checkNumber(`retry.backoff[${i}]`, ms, { min: 1, max: maxDelayMs, note: '(24 h)' }));
  } else if (typeof backoff === 'object' && backoff !== null && (backoff as { delayMs?: unknown }).delayMs !== undefined) {
    checkNumber('retry.backoff.delayMs', (backoff as { delayMs?: unknown }).delayMs, { min: 1, max: maxDelayMs, note: '(24 h)' });
  }
  return resolveRetry('retry', { ...value, backoff, attempts: 100 }, scheduleDefaults);
}

// The exponential form's defaults: 5 min doubling up to hourly, like the default schedule.
const scheduleDefaults = { attempts: 100, backoff: { delayMs: 5 * 60_000, factor: 2, maxDelayMs: 60 * 60_000 } };

/** Every option createReconciler takes. */
const reconcilerOptionNames = optionNames<ReconcilerOptions>()([
  'client',
  'apiPix',
  'processing',
  'watchStore',
  'listPending',
  'minAgeMs',
  'maxAgeMs',
  'everyMs',
  'batch',
  'concurrency',
  'retry',
  'queryLimitPerMinute',
  'querySharePerMinute',
  'leaseMs',
  'eventFor',
  'variant',
  'onError',
  'onRecovered',
  'logger',
  'now',
]);
