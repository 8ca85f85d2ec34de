import { describeError as describe } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { escapeLogFields } from '../shared/logger.js';
import { apiPixReconciler, isApiPixReconciler, type ApiPixReconcilerOptions } from './api-pix-reconciler.js';
import type { ListingReconciler } from './create-listing-reconciler.js';
import { recoveredEvent } from './recovered-event.js';
import { resolveReconcilerOptions, type PendingCharge, type ReconcilerOptions } from './reconciler-options.js';
import type { WatchEntry } from './watch-store.js';

/** What one run did. */
export interface RunResult {
  /** Charges read from the gateway (each is one API call). */
  checked: number;
  /** Final events handed to processing and handled (a webhook had not done it). */
  recovered: number;
  /** Charges no longer followed: final (recovered or already handled), or older than `maxAgeMs`. */
  finished: number;
  /** Due charges left for a later run: the query budget or a 429 stopped them. */
  deferred: number;
  /** Reads or hand-offs that failed; the charge is read again later. */
  failed: number;
  /**
   * Charges whose final event the payment book holds (or held already) for a person: known, so no longer
   * read (reading again would only add `duplicate_hold` entries); never counted as failed.
   */
  held: number;
}

/** What `watch` did: the charge is followed, or the watch store failed. */
export type WatchOutcome = { ok: true } | { ok: false; error: unknown };

export interface ReconcilerMetrics {
  /** Charges followed now. */
  watched: number;
  /** Totals since this reconciler was created. */
  checked: number;
  recovered: number;
  finished: number;
  /** Age of the oldest charge still followed, in milliseconds (0 when none). */
  lagMs: number;
  /** Epoch milliseconds until which reads are paused by the gateway's rate limit (0 when not). */
  pausedUntil: number;
}

export interface Reconciler {
  /**
   * Follows a charge until a final status or `maxAgeMs`. Never rejects: a store failure is logged and
   * returned as `{ ok: false, error }` (`createClient({ watch })` retries it).
   */
  watch(chargeId: string, createdAt?: number | Date | string): Promise<WatchOutcome>;
  /** One pass over the charges due now. */
  runOnce(): Promise<RunResult>;
  /** Runs now, then every `everyMs` (never two runs at once). */
  start(): void;
  /** Stops the timer and waits for the run in progress. */
  stop(): Promise<void>;
  metrics(): Promise<ReconcilerMetrics>;
}

const windowMs = 60_000;

function epochMs(value: number | Date | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = typeof value === 'number' ? value : value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? ms : fallback;
}

function rateLimitedFor(error: unknown): number | undefined {
  const e = error as { status?: unknown; retryAfter?: unknown } | null;
  if (e?.status !== 429) return undefined;
  return typeof e.retryAfter === 'number' && e.retryAfter > 0 ? e.retryAfter * 1000 : windowMs;
}

/**
 * Follows charges to a final status through `GET /api/v1/transactions/{id}`, and hands each final
 * status to processing as the event the webhook would have carried (`source: 'reconcile'`), so a
 * payment whose webhook never arrived is still handled, once. With `apiPix` (a standard PSP's client)
 * it is the listing reconciler instead (`createListingReconciler`): `GET /pix` walked from a cursor.
 */
export function createReconciler(options: ApiPixReconcilerOptions): ListingReconciler;
export function createReconciler(options: ReconcilerOptions): Reconciler;
export function createReconciler(options: ReconcilerOptions | ApiPixReconcilerOptions): Reconciler | ListingReconciler {
  if (isApiPixReconciler(options)) return apiPixReconciler(options);
  const config = resolveReconcilerOptions(options);
  const store = config.watchStore;
  const owner = `rc_${globalThis.crypto.randomUUID()}`;
  const totals = { checked: 0, recovered: 0, finished: 0 };
  const ownReadLimit = Math.max(1, Math.floor(config.queryLimitPerMinute * config.querySharePerMinute));
  const retrySoonMs = Math.min(config.retry.delayAfter(1), windowMs);
  let pausedUntil = 0;
  let running: Promise<RunResult> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = true;

  const warn = (fields: object, message: string) => {
    try {
      config.logger?.warn(escapeLogFields(fields), message);
    } catch {
      // A broken logger must not stop the reconciler.
    }
  };

  // Guarded (and escaped): a broken logger must not stop the reconciler.
  const errorLogger = guardLogger(config.logger);

  async function reportUnreadable(chargeId: string, status: string | undefined, message: string): Promise<void> {
    const error = new PixhookError('response_invalid', `pixhook reconcile: charge ${chargeId}: ${message}`);
    errorLogger.error(
      { chargeId, ...(status !== undefined && { status }), error: error.message },
      'pixhook reconcile: a charge record it cannot read; it is read again later',
    );
    try {
      await config.onError?.({ reason: 'record_unreadable', chargeId, ...(status !== undefined && { status }), error });
    } catch (thrown) {
      warn({ chargeId, error: describe(thrown) }, 'pixhook reconcile: onError threw');
    }
  }

  /** Reads the gateway still allows beyond the merchant's own share, from the client's last figures. */
  function gatewayHeadroom(now: number): number {
    const info = config.client.rateLimit?.();
    if (!info || !/^GET \/api\/v1\//.test(info.operation)) return Infinity;
    if (info.limit === undefined || info.remaining === undefined || info.resetAt === undefined || info.resetAt <= now) return Infinity;
    const reserved = info.limit - Math.floor(info.limit * config.querySharePerMinute);
    const headroom = info.remaining - reserved;
    if (headroom <= 0) pausedUntil = Math.max(pausedUntil, info.resetAt);
    return Math.max(0, headroom);
  }

  async function addPending(now: number): Promise<void> {
    if (!config.listPending) return;
    const listed = (await config.listPending()) as Iterable<PendingCharge> | AsyncIterable<PendingCharge>;
    for await (const charge of listed) {
      if (typeof charge?.chargeId === 'string' && charge.chargeId !== '')
        await store.watch(charge.chargeId, epochMs(charge.createdAt, now));
    }
  }

  async function readOne(entry: WatchEntry, result: RunResult): Promise<'done' | 'rate_limited'> {
    const checks = entry.checks + 1;
    let transaction;
    try {
      transaction = await config.client.getTransaction(entry.chargeId);
    } catch (error) {
      const wait = rateLimitedFor(error);
      if (wait !== undefined) {
        pausedUntil = Math.max(pausedUntil, config.now() + wait);
        await store.reschedule(entry.chargeId, owner, pausedUntil, entry.checks);
        result.deferred++;
        return 'rate_limited';
      }
      result.checked++;
      result.failed++;
      // A record the client cannot parse (an amount that is not integer cents) will not heal by itself.
      if ((error as { code?: unknown } | null)?.code === 'response_invalid')
        await reportUnreadable(entry.chargeId, undefined, describe(error));
      else
        warn({ chargeId: entry.chargeId, error: describe(error) }, 'pixhook reconcile: reading the charge failed; it is read again later');
      await store.reschedule(entry.chargeId, owner, config.now() + config.retry.delayAfter(Math.max(checks, 1)), checks);
      return 'done';
    }
    result.checked++;
    const built = recoveredEvent(transaction, config.eventFor, config.variant);
    if ('skip' in built) {
      // A final status the record cannot make an event from needs a person: count it, say it, read it again later.
      if (built.skip === 'unreadable') {
        result.failed++;
        await reportUnreadable(entry.chargeId, transaction.status, built.message);
      }
      await store.reschedule(entry.chargeId, owner, config.now() + config.retry.delayAfter(Math.max(checks, 1)), checks);
      return 'done';
    }
    const accepted = await config.processing.accept(built.event);
    if (accepted.reason === 'held') {
      result.held++;
      if (await store.finish(entry.chargeId, owner)) result.finished++;
      return 'done';
    }
    if (accepted.reason === undefined || accepted.reason === 'duplicate' || accepted.reason === 'unknown_event') {
      if (accepted.reason === undefined) {
        result.recovered++;
        try {
          config.onRecovered?.(built.event, accepted.key === undefined ? {} : { key: accepted.key });
        } catch (error) {
          warn({ chargeId: entry.chargeId, error: describe(error) }, 'pixhook reconcile: onRecovered threw');
        }
      }
      if (await store.finish(entry.chargeId, owner)) result.finished++;
      return 'done';
    }
    // In flight (a webhook is handling it right now), a failed handler, a store outage: look again soon.
    result.failed++;
    warn(
      { chargeId: entry.chargeId, reason: accepted.reason, ...(accepted.key && { key: accepted.key }) },
      'pixhook reconcile: not handled; it is tried again',
    );
    await store.reschedule(entry.chargeId, owner, config.now() + retrySoonMs, checks);
    return 'done';
  }

  async function run(): Promise<RunResult> {
    const result: RunResult = { checked: 0, recovered: 0, finished: 0, deferred: 0, failed: 0, held: 0 };
    const now = config.now();
    await addPending(now);
    if (pausedUntil > now) return result;
    const leased = await store.lease(now, config.batch, config.leaseMs, owner);
    const toRead: WatchEntry[] = [];
    for (const entry of leased) {
      if (now - entry.createdAt >= config.maxAgeMs) {
        warn({ chargeId: entry.chargeId, checks: entry.checks }, 'pixhook reconcile: no final status within maxAgeMs; no longer followed');
        if (await store.finish(entry.chargeId, owner)) result.finished++;
      } else if (entry.checks === 0 && now < entry.createdAt + config.minAgeMs) {
        // Too young: the webhook usually arrives first. Costs no read.
        await store.reschedule(entry.chargeId, owner, entry.createdAt + config.minAgeMs, 0);
      } else toRead.push(entry);
    }
    const granted = toRead.length === 0 ? 0 : await store.reserveReads(toRead.length, ownReadLimit, windowMs, now);
    for (const entry of toRead.slice(granted)) {
      await store.reschedule(entry.chargeId, owner, now, entry.checks);
      result.deferred++;
    }
    const queue = toRead.slice(0, granted);
    let limited = false;
    const worker = async () => {
      for (let entry = queue.shift(); entry; entry = queue.shift()) {
        // The client's last figures after each read: stop before the merchant's own share is touched.
        if (!limited && gatewayHeadroom(config.now()) <= 0) limited = true;
        if (limited) {
          await store.reschedule(entry.chargeId, owner, Math.max(now, pausedUntil), entry.checks);
          result.deferred++;
          continue;
        }
        try {
          if ((await readOne(entry, result)) === 'rate_limited') limited = true;
        } catch (error) {
          // A store that throws: the lease expires and the charge is due again.
          result.failed++;
          warn({ chargeId: entry.chargeId, error: describe(error) }, 'pixhook reconcile: the watch store failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.concurrency, queue.length) }, worker));
    totals.checked += result.checked;
    totals.recovered += result.recovered;
    totals.finished += result.finished;
    return result;
  }

  function runOnce(): Promise<RunResult> {
    // Two calls at once share one pass: a charge is never read twice by one reconciler.
    running ??= run().finally(() => (running = undefined));
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(
      () => {
        runOnce()
          .catch((error: unknown) => warn({ error: describe(error) }, 'pixhook reconcile: the run failed'))
          .finally(schedule);
      },
      Math.max(config.everyMs, pausedUntil - config.now()),
    );
  }

  return {
    async watch(chargeId, createdAt) {
      try {
        await store.watch(chargeId, epochMs(createdAt, config.now()));
        return { ok: true };
      } catch (error) {
        warn({ chargeId, error: describe(error) }, 'pixhook reconcile: could not watch the charge');
        return { ok: false, error };
      }
    },
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      runOnce()
        .catch((error: unknown) => warn({ error: describe(error) }, 'pixhook reconcile: the run failed'))
        .finally(schedule);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    async metrics() {
      const stats = await store.stats();
      const now = config.now();
      return {
        watched: stats.watched,
        ...totals,
        lagMs: stats.oldestCreatedAt === undefined ? 0 : Math.max(0, now - stats.oldestCreatedAt),
        pausedUntil: pausedUntil > now ? pausedUntil : 0,
      };
    },
  };
}
