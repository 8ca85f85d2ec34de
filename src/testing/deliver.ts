import { PixhookError, signatureHeader, type SigningScheme } from '../index.js';
import { checkSecret, checkTimeoutMs, maxDelayMs, refuseRenamed } from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions } from '../shared/retry-options.js';
import { toBodyBytes } from './sign.js';

/** Waits `ms`; settles early (either way) when `signal` aborts. Inject a fake one so tests never wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface DeliverOptions {
  url: string | URL;
  /** The exact body: bytes or text as they are, any other value as JSON. */
  body: unknown;
  /** Signs the body, as the gateway does. Not needed when `signature` is given. */
  secret?: string;
  /** Send this `X-Signature` instead (a forged delivery), or `null` to send none. */
  signature?: string | null;
  /** Sign as a sibling brand does (`{ scheme: 'timestamped', header }`), afresh at each attempt. Default `X-Signature: sha256=…`. */
  signing?: SigningScheme;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * Attempts in total (the first included) and the waits between them. Default, like the gateway:
   * `{ attempts: 5, backoff: { delayMs: 1000, factor: 2 } }` (waits 1 s, 2 s, 4 s, 8 s).
   */
  retry?: RetryOptions;
  /** Randomize each wait to between half and all of it. Default off, so runs are deterministic. */
  jitter?: boolean;
  /** An attempt that gets no answer within this counts as failed. Default 10 000 ms, like the gateway. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** Used for the backoff waits and (with a signal) for each attempt's timeout. */
  sleep?: Sleep;
  /** Milliseconds since the epoch; drives `at` and `durationMs`. */
  now?: () => number;
  /** For jitter. Default `Math.random`. */
  random?: () => number;
  /** Return true after a failed attempt to stop there, with no more retries (the CLI stops when nothing listens). */
  giveUp?: (attempt: DeliveryAttempt) => boolean;
  /** Called as soon as each attempt settles (for live output). */
  onAttempt?: (attempt: DeliveryAttempt) => void;
}

export interface DeliveryAttempt {
  /** 1-based. */
  attempt: number;
  /** The HTTP status, when an answer came. */
  status?: number;
  /** Why no answer came (timeout, connection refused …). */
  error?: string;
  /** The answer's body (first 1 000 characters). */
  responseBody?: string;
  durationMs: number;
  /** ISO 8601 start of the attempt. */
  at: string;
  /** The wait before the next attempt, when there is one. */
  retryInMs?: number;
}

export interface DeliveryResult {
  /** True when an attempt got a 2xx. */
  delivered: boolean;
  attempts: DeliveryAttempt[];
  /** The last answer's status (undefined when the last attempt got none). */
  finalStatus?: number;
  /** The `X-Signature` sent with every attempt (undefined when none was). */
  signature?: string;
}

class AttemptTimeout extends PixhookError {
  constructor(message: string) {
    super('timeout', message);
  }
}

const deliverRetryDefaults = { attempts: 5, backoff: { delayMs: 1000, factor: 2, maxDelayMs } };

/**
 * Delivers one webhook the way the gateway does: POST with `Content-Type: application/json` and
 * `X-Signature`, success only on 2xx, otherwise retried with exponential backoff up to `attempts`.
 */
export async function deliver(options: DeliverOptions): Promise<DeliveryResult> {
  refuseRenamed(options, {
    attempts: '`retry: { attempts }`',
    backoffMs: '`retry: { backoff: { delayMs } }`',
    factor: '`retry: { backoff: { factor } }`',
  });
  const retry = resolveRetry('retry', options.retry, deliverRetryDefaults);
  const attempts = retry.attempts;
  const timeoutMs = checkTimeoutMs('timeoutMs', options.timeoutMs, 10_000);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? preciseNow;
  const random = options.random ?? Math.random;

  const bytes = toBodyBytes(options.body);
  const scheme = options.signing ?? { scheme: 'sha256' };
  const secret = options.secret;
  // A secret is needed unless a signature (or none) is given; one given must be a real one either way.
  if (options.signature === undefined || secret !== undefined) checkSecret('secret', secret);
  const headers: Record<string, string> = {
    'user-agent': 'pixhook-simulator',
    ...options.headers,
    'content-type': 'application/json',
  };
  let signature: string | undefined;
  // A timestamped signature is made again for every attempt, as a real sender does.
  const signNow = async () => {
    if (options.signature === null) return;
    // A given signature is sent as it is: nothing is signed, with no secret or an empty one.
    signature = options.signature ?? (await signatureHeader(scheme, bytes, secret as string)).value;
    headers[(scheme.header ?? 'x-signature').toLowerCase()] = signature;
  };
  await signNow();

  const log: DeliveryAttempt[] = [];
  for (let n = 1; n <= attempts; n++) {
    if (n > 1 && scheme.scheme === 'timestamped') await signNow();
    const startedAt = now();
    const outcome = await attemptOnce(fetchImpl, sleep, String(options.url), headers, bytes, timeoutMs);
    const record: DeliveryAttempt = { attempt: n, ...outcome, durationMs: round(now() - startedAt), at: new Date(startedAt).toISOString() };
    const ok = record.status !== undefined && record.status >= 200 && record.status < 300;
    const last = ok || n === attempts || options.giveUp?.(record) === true;
    const wait = last ? undefined : retry.delayAfter(n) * (options.jitter ? 0.5 + random() / 2 : 1);
    if (wait !== undefined) record.retryInMs = round(wait);
    log.push(record);
    options.onAttempt?.(record);
    if (ok) return result(true, log, signature);
    if (wait === undefined) break;
    await sleep(wait);
  }
  return result(false, log, signature);
}

async function attemptOnce(
  fetchImpl: typeof globalThis.fetch,
  sleep: Sleep,
  url: string,
  headers: Record<string, string>,
  bytes: Uint8Array,
  timeoutMs: number,
): Promise<Pick<DeliveryAttempt, 'status' | 'error' | 'responseBody'>> {
  const request = new AbortController();
  const timer = new AbortController();
  const timedOut = sleep(timeoutMs, timer.signal).then(
    () => {
      if (timer.signal.aborted) return new Promise<never>(() => {});
      request.abort(new AttemptTimeout(`no answer within ${timeoutMs} ms`));
      throw new AttemptTimeout(`no answer within ${timeoutMs} ms`);
    },
    () => new Promise<never>(() => {}),
  );
  try {
    // The answer's body is read inside the timeout too: a receiver that stalls mid-answer is no answer.
    const answered = (async () => {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers,
        body: bytes as BodyInit,
        redirect: 'manual',
        signal: request.signal,
      });
      const text = await response.text();
      return { status: response.status, responseBody: text.slice(0, 1000) };
    })();
    answered.catch(() => undefined); // After a timeout its abort rejection is expected, not unhandled.
    return await Promise.race([answered, timedOut]);
  } catch (error) {
    return { error: describe(error) };
  } finally {
    timer.abort();
  }
}

function result(delivered: boolean, attempts: DeliveryAttempt[], signature: string | undefined): DeliveryResult {
  const last = attempts[attempts.length - 1];
  const out: DeliveryResult = { delivered, attempts };
  if (last?.status !== undefined) out.finalStatus = last.status;
  if (signature !== undefined) out.signature = signature;
  return out;
}

const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const id = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(id);
        resolve();
      },
      { once: true },
    );
  });

function describe(error: unknown): string {
  if (error instanceof AttemptTimeout) return `${error.code}: ${error.message}`;
  if (error instanceof Error) {
    // fetch wraps the network cause (ECONNREFUSED, ECONNRESET …) in a generic TypeError.
    const cause = (error as { cause?: unknown }).cause;
    if (typeof cause !== 'object' || cause === null) return error.message;
    const { code, message } = cause as { code?: unknown; message?: unknown };
    const detail = typeof code === 'string' ? code : typeof message === 'string' ? message : undefined;
    return detail ? `${error.message}: ${detail}` : error.message;
  }
  return String(error);
}

// Date.now() has whole-millisecond steps; local deliveries take less than that.
function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
