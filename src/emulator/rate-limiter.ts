interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

type RateLimitDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; retryAfterSeconds: number; rule: RateLimitRule };

/** Fixed windows per (rule, subject), on an injectable clock. */
export function createRateLimiter(now: () => number) {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    take(bucket: string, rule: RateLimitRule): RateLimitDecision {
      const t = now();
      const windowMs = rule.windowSeconds * 1000;
      let window = windows.get(bucket);
      if (!window || t >= window.startedAt + windowMs) {
        window = { startedAt: t, count: 0 };
        windows.set(bucket, window);
      }
      const resetAt = window.startedAt + windowMs;
      const allowed = window.count < rule.limit;
      if (allowed) window.count++;
      const headers = {
        'X-RateLimit-Limit': String(rule.limit),
        'X-RateLimit-Remaining': String(rule.limit - window.count),
        'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
        'X-RateLimit-Window': String(rule.windowSeconds),
      };
      if (allowed) return { allowed, headers };
      const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - t) / 1000));
      return { allowed, rule, retryAfterSeconds, headers: { ...headers, 'Retry-After': String(retryAfterSeconds) } };
    },
  };
}
