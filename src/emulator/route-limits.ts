import type { IncomingMessage } from 'node:http';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import type { Route } from './gateway-routes.js';
import { digest } from './gateway-tokens.js';
import { RequestError } from './http-io.js';
import { createRateLimiter } from './rate-limiter.js';

const queryRoutes: ReadonlySet<string> = new Set(['readCompany', 'readTransaction', 'listWebhooks', 'registerWebhook', 'deleteWebhook']);

/**
 * The gateway's rate limits per route, as each variant documents them: `take` answers the rate-limit
 * headers of a request it lets through, and throws a 429 (with `retryAfter`) for one over the limit.
 */
export function createRouteLimits(config: Pick<ResolvedEmulatorOptions, 'now' | 'rateLimits' | 'variant' | 'apiKey'>) {
  const limiter = createRateLimiter(config.now);
  return {
    take(route: Route, request: IncomingMessage): Record<string, string> {
      if (!route.limit) return {};
      const limit = config.rateLimits[route.limit];
      if (!Number.isFinite(limit)) return {};
      const subject = route.auth === 'none' ? authLimitSubject(request, config.variant) : config.apiKey;
      // Variant A's summary limits every query together ("queries 100 per minute per company").
      const bucket = config.variant === 'a' && queryRoutes.has(route.limit) ? 'queries' : route.limit;
      const decision = limiter.take(`${bucket}|${digest(subject).toString('hex')}`, { limit, windowSeconds: 60 });
      if (!decision.allowed) {
        const retryAfter = decision.retryAfterSeconds;
        throw new RequestError(
          429,
          config.variant === 'a' ? 'RATE_LIMITED' : 'RATE_LIMIT_EXCEEDED',
          'Too many requests; retry later.',
          { limit: decision.rule.limit, window: decision.rule.windowSeconds, retryAfter },
          decision.headers,
        );
      }
      return decision.headers;
    },
  };
}

/**
 * Who the authentication limit counts: the caller's IP in Variant A ("per IP"), the IP and the API
 * key in Variant B. Never the secret: each wrong secret must not get a fresh allowance to guess with.
 */
function authLimitSubject(request: IncomingMessage, variant: string): string {
  const ip = request.socket.remoteAddress ?? '';
  if (variant === 'a') return ip;
  const basic = /^Basic\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const apiKey = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':')[0] : '';
  return `${ip}|${apiKey}`;
}
