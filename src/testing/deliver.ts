import { PixhookConfigError, PixhookError } from '../index.js';
import { sign, toBodyBytes } from './sign.js';

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
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Attempts in total, the first included. Default 5, like the gateway. */
  attempts?: number;
  /** Wait before the second attempt. Default 1000 ms. */
  backoffMs?: number;
  /** Each wait is the previous one times this. Default 2 (1 s, 2 s, 4 s, 8 s). */
  factor?: number;
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

/**
 * Delivers one webhook the way the gateway does: POST with `Content-Type: application/json` and
 * `X-Signature`, success only on 2xx, otherwise retried with exponential backoff up to `attempts`.
 */
export async function deliver(options: DeliverOptions): Promise<DeliveryResult> {
  const attempts = positiveInteger('attempts', options.attempts ?? 5);
  const backoffMs = nonNegative('backoffMs', options.backoffMs ?? 1000);
  const factor = nonNegative('factor', options.factor ?? 2);
  const timeoutMs = nonNegative('timeoutMs', options.timeoutMs ?? 10_000);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? preciseNow;
  const random = options.random ?? Math.random;

  const bytes = toBodyBytes(options.body);
  let signature: string | undefined;
  if (options.signature === undefined) {
    if (options.secret === undefined) throw new PixhookConfigError('pixhook/testing: deliver needs a `secret` (or an explicit `signature`).');
    signature = await sign(bytes, options.secret);
  } else if (options.signature !== null) signature = options.signature;
  const headers: Record<string, string> = {
    'user-agent': 'pixhook-simulator',
    ...options.headers,
    'content-type': 'application/json',
  };
  if (signature !== undefined) headers['x-signature'] = signature;

  const log: DeliveryAttempt[] = [];
  for (let n = 1; n <= attempts; n++) {
    const startedAt = now();
    const outcome = await attemptOnce(fetchImpl, sleep, String(options.url), headers, bytes, timeoutMs);
    const record: DeliveryAttempt = { attempt: n, ...outcome, durationMs: round(now() - startedAt), at: new Date(startedAt).toISOString() };
    const ok = record.status !== undefined && record.status >= 200 && record.status < 300;
    const wait = ok || n === attempts ? undefined : backoffMs * factor ** (n - 1) * (options.jitter ? 0.5 + random() / 2 : 1);
    if (wait !== undefined) record.retryInMs = round(wait);
    log.push(record);
    options.onAttempt?.(record);
    if (ok) return result(true, log, signature);
    if (wait !== undefined) await sleep(wait);
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
  if (error instanceof AttemptTimeout) return error.message;
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

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new PixhookConfigError(`pixhook/testing: \`${name}\` must be a positive integer, got ${value}.`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new PixhookConfigError(`pixhook/testing: \`${name}\` must be a non-negative number, got ${value}.`);
  return value;
}
