import type { FetchLike, Sleep } from './http-transport.js';

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
  /** Retries of a safe call on 429, 5xx or a dropped connection. Default 3. */
  maxRetries?: number;
  /** First backoff; doubles per retry. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Bound on one wait; a `Retry-After` longer than this is thrown, not waited for. Default 60 000 ms. */
  maxRetryDelayMs?: number;
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
   * its webhook never arrives. A watcher that fails never fails the charge.
   */
  watch?: ChargeWatcher;
  /** Default `crypto.randomUUID`. */
  generateIdempotencyKey?: () => string;
}
