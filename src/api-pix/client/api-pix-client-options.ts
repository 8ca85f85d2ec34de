import type { ExpectingBook } from '../../client/client-options.js';
import type { ReadBudget } from '../../client/read-budget.js';
import type { Sleep } from '../../client/http-transport.js';
import type { Logger } from '../../shared/logger.js';
import type { RetryOptions } from '../../shared/retry-options.js';

export interface ApiPixClientOptions {
  /** The PSP's API Pix root, e.g. `https://pix.example.com/api/v2` (https only: the API is mTLS). */
  baseUrl: string;
  /** Default `${baseUrl}/oauth/token`. */
  tokenUrl?: string;
  clientId: string;
  clientSecret: string;
  /** The client certificate the PSP issued: PEM text or a file path. */
  cert: string;
  /** Its private key: PEM text or a file path. */
  key: string;
  /** The CA that signed the PSP's server certificate, when it is not a public one: PEM text or a file path. */
  ca?: string;
  /** The merchant's receiving key: the default `chave` of charges and of `configureWebhook`. */
  pixKey?: string;
  /** OAuth2 scopes asked for, e.g. `'cob.write cob.read pix.read'`. Default: none asked (the PSP's default). */
  scope?: string;
  /**
   * Runs of a safe call (GET, PUT to a chosen id, DELETE) on 429, 5xx or a dropped connection, and the waits
   * between them. Default `{ attempts: 4, backoff: { delayMs: 500, factor: 2, maxDelayMs: 60000 } }`. `POST /cob`
   * is never retried (the charge may exist already). A `Retry-After` longer than the longest wait is thrown.
   */
  retry?: RetryOptions;
  /** Renew the token this long before it expires. Default 60 000 ms. */
  renewBeforeMs?: number;
  /** Abort one HTTP request after this long. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** Reads (GET) per minute shared with whatever else uses it (`readBudget({ perMinute })`). Default: none. */
  readBudget?: ReadBudget;
  /** Every charge created is expected in it by its txid (amount, expiry). A failing book never fails the charge. */
  book?: ExpectingBook;
  /** pino-compatible; each wait before a call is retried (a 429, a 5xx, no answer) is logged (warn), a book that could not record a charge too (error). */
  logger?: Logger;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Default: a timer that rejects when the signal aborts. */
  sleep?: Sleep;
}
