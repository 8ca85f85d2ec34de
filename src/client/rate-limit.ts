/** The last `X-RateLimit-*` figures the gateway sent. */
export interface RateLimitInfo {
  /** `METHOD /path` of the answer that carried them. */
  operation: string;
  limit: number | undefined;
  remaining: number | undefined;
  /** When the window resets, in epoch milliseconds (from `X-RateLimit-Reset`). */
  resetAt: number | undefined;
  windowSeconds: number | undefined;
  /** `Retry-After` in seconds, on a 429. */
  retryAfterSeconds: number | undefined;
}

function numberHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

// The interface says only "timestamp": accept epoch milliseconds, epoch seconds, or seconds from now.
export function resetToEpochMs(reset: number, nowMs: number): number {
  if (reset > 1e12) return reset;
  if (reset > 1e9) return reset * 1000;
  return nowMs + reset * 1000;
}

/** Reads the rate-limit headers; undefined when the answer carried none. */
export function readRateLimit(headers: Headers, operation: string, nowMs: number): RateLimitInfo | undefined {
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const remaining = numberHeader(headers, 'x-ratelimit-remaining');
  const reset = numberHeader(headers, 'x-ratelimit-reset');
  const windowSeconds = numberHeader(headers, 'x-ratelimit-window');
  const retryAfterSeconds = numberHeader(headers, 'retry-after');
  if ([limit, remaining, reset, windowSeconds, retryAfterSeconds].every((v) => v === undefined)) return undefined;
  return {
    operation,
    limit,
    remaining,
    resetAt: reset === undefined ? undefined : resetToEpochMs(reset, nowMs),
    windowSeconds,
    retryAfterSeconds,
  };
}

/** How long the gateway asked to wait: `Retry-After`, else until `X-RateLimit-Reset`. */
export function rateLimitWaitMs(info: RateLimitInfo | undefined, nowMs: number): number | undefined {
  if (!info) return undefined;
  if (info.retryAfterSeconds !== undefined) return Math.max(0, info.retryAfterSeconds * 1000);
  if (info.resetAt !== undefined) return Math.max(0, info.resetAt - nowMs);
  return undefined;
}
