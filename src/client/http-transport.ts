import type { z } from 'zod';
import { PixNetworkError, PixResponseError, apiErrorFrom, PixRateLimitedError, type PixApiError } from './client-errors.js';
import { rateLimitWaitMs, readRateLimit, type RateLimitInfo } from './rate-limit.js';
import { createTokenCache } from './token-cache.js';
import type { RetryPolicy } from '../shared/retry-options.js';
import type { ReadBudget } from './read-budget.js';
import type { Logger } from '../shared/logger.js';
import { waitToRetry } from '../shared/client-retry.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
export type { Sleep } from '../shared/client-retry.js';
import type { Sleep } from '../shared/client-retry.js';

interface TransportConfig {
  apiKey: string;
  apiSecret: string;
  baseUrl: string;
  fetch: FetchLike;
  now: () => number;
  sleep: Sleep;
  /** Safe calls only. */
  retry: RetryPolicy;
  renewBeforeMs: number;
  requestTimeoutMs: number;
  /** Guarded. Told of every wait before a retry, so a stalled call (a 429 on the token) is never silent. */
  logger: Logger;
}

interface CallSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Whether repeating the call can never do the work twice (reads, webhook calls, transfers with
   * their idempotency key). Only such calls are retried on 429, 5xx and dropped connections.
   */
  retrySafe: boolean;
  signal?: AbortSignal | undefined;
  /** Each HTTP attempt of this call (its retries too) takes one read from it; spent, the call fails as a 429. */
  budget?: ReadBudget | undefined;
}

interface Transport {
  call<S extends z.ZodType>(spec: CallSpec, schema: S): Promise<z.output<S>>;
  rateLimit(): RateLimitInfo | undefined;
}

const authSchemaShape = (body: unknown): { token: string; expiresInMs: number } | undefined => {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const source = typeof record['token'] === 'string' ? record : (record['data'] as Record<string, unknown> | undefined);
  const token = source?.['token'];
  const expiresIn = source?.['expiresIn'];
  if (typeof token !== 'string' || token === '') return undefined;
  // The interface gives 1 800 000 (ms); a value that small is surely seconds.
  const ms = typeof expiresIn === 'number' && expiresIn > 0 ? (expiresIn < 100_000 ? expiresIn * 1000 : expiresIn) : 1_800_000;
  return { token, expiresInMs: ms };
};

export function createTransport(config: TransportConfig): Transport {
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  let lastRateLimit: RateLimitInfo | undefined;
  const basic = `Basic ${Buffer.from(`${config.apiKey}:${config.apiSecret}`, 'utf8').toString('base64')}`;

  const tokens = createTokenCache({
    now: config.now,
    renewBeforeMs: config.renewBeforeMs,
    fetchToken: async () => {
      const body = await send({ method: 'POST', path: '/api/auth', retrySafe: true }, () => Promise.resolve(basic), false);
      const parsed = authSchemaShape(body);
      if (!parsed) throw new PixResponseError('POST /api/auth: the answer carries no token');
      return parsed;
    },
  });

  async function readJson(response: Response): Promise<unknown> {
    const text = await response.text();
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  async function send(spec: CallSpec, authorization: () => Promise<string>, refreshOn401: boolean): Promise<unknown> {
    const operation = `${spec.method} ${spec.path.replace(/\?.*$/, '')}`;
    let refreshed = !refreshOn401;
    let retries = 0;
    for (;;) {
      spec.signal?.throwIfAborted();
      if (spec.budget !== undefined) {
        const waitMs = spec.budget.take();
        if (waitMs > 0) throw budgetSpent(operation, spec.budget, waitMs);
      }
      const auth = await authorization();
      const timeout = AbortSignal.timeout(config.requestTimeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await config.fetch(`${baseUrl}${spec.path}`, {
          method: spec.method,
          headers: {
            accept: 'application/json',
            authorization: auth,
            ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...spec.headers,
          },
          ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
          signal,
        });
      } catch (error) {
        spec.signal?.throwIfAborted();
        if (await waitToRetry(config, { operation, retrySafe: spec.retrySafe, retries, signal: spec.signal })) {
          retries++;
          continue;
        }
        const reason = error instanceof Error ? error.message : String(error);
        throw new PixNetworkError(`${operation}: no answer from the gateway (${reason})`, { cause: error });
      }

      const info = readRateLimit(response.headers, operation, config.now());
      if (info) lastRateLimit = info;
      const body = await readJson(response);
      if (response.ok) return body;

      if (response.status === 401 && !refreshed) {
        // One refresh and one retry, never a loop.
        refreshed = true;
        tokens.invalidate(auth.slice('Bearer '.length));
        continue;
      }
      const error: PixApiError = apiErrorFrom({ status: response.status, body, operation, retryAfterSeconds: info?.retryAfterSeconds });
      const hint = response.status === 429 ? (rateLimitWaitMs(info, config.now()) ?? retryAfterFrom(error)) : undefined;
      const retry = { operation, retrySafe: spec.retrySafe, retries, status: response.status, hintMs: hint, error, signal: spec.signal };
      if (await waitToRetry(config, retry)) {
        retries++;
        continue;
      }
      throw error;
    }
  }

  return {
    async call(spec, schema) {
      const body = await send(spec, async () => `Bearer ${await tokens.get()}`, true);
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
        throw new PixResponseError(`${spec.method} ${spec.path}: unexpected answer at ${where}: ${issue?.message ?? 'invalid'}`);
      }
      return parsed.data;
    },
    rateLimit: () => lastRateLimit,
  };
}

/** A spent read budget answers like the gateway's own 429, so every caller handles it one way. */
function budgetSpent(operation: string, budget: ReadBudget, waitMs: number): PixRateLimitedError {
  const retryAfter = Math.ceil(waitMs / 1000);
  return new PixRateLimitedError({
    status: 429,
    code: 'READ_BUDGET_SPENT',
    message: `the read budget (${budget.perMinute} per minute) is spent; a read is free again in ${retryAfter} s`,
    operation,
    details: { limit: budget.perMinute, window: 60, retryAfter },
    retryAfter,
  });
}

function retryAfterFrom(error: PixApiError): number | undefined {
  return error instanceof PixRateLimitedError && error.retryAfter !== undefined ? error.retryAfter * 1000 : undefined;
}
