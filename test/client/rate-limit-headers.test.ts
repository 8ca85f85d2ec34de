import { describe, expect, it } from 'vitest';
import { rateLimitWaitMs, readRateLimit, resetToEpochMs } from '../../src/client/rate-limit.js';

const now = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('X-RateLimit-* headers', () => {
  it('reads every figure, the reset as epoch seconds', () => {
    const headers = new Headers({
      'x-ratelimit-limit': '30',
      'x-ratelimit-remaining': '7',
      'x-ratelimit-reset': String(now / 1000 + 42),
      'x-ratelimit-window': '60',
    });
    expect(readRateLimit(headers, 'GET /api/v1/webhook', now)).toEqual({
      operation: 'GET /api/v1/webhook',
      limit: 30,
      remaining: 7,
      resetAt: now + 42_000,
      windowSeconds: 60,
      retryAfterSeconds: undefined,
    });
  });

  it('accepts the reset as epoch milliseconds or seconds from now', () => {
    expect(resetToEpochMs(now + 5000, now)).toBe(now + 5000);
    expect(resetToEpochMs(12, now)).toBe(now + 12_000);
  });

  it('waits Retry-After when given, else until X-RateLimit-Reset', () => {
    const both = readRateLimit(new Headers({ 'retry-after': '3', 'x-ratelimit-reset': String(now / 1000 + 40) }), 'x', now);
    expect(rateLimitWaitMs(both, now)).toBe(3000);
    const resetOnly = readRateLimit(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 40) }), 'x', now);
    expect(rateLimitWaitMs(resetOnly, now)).toBe(40_000);
    expect(readRateLimit(new Headers(), 'x', now)).toBeUndefined();
  });
});
