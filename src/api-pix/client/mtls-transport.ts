import type { Agent } from 'node:https';
import type { z } from 'zod';
import { PixNetworkError, PixResponseError } from '../../client/client-errors.js';
import type { ReadBudget } from '../../client/read-budget.js';
import { rateLimitWaitMs, readRateLimit, type RateLimitInfo } from '../../client/rate-limit.js';
import { createTokenCache } from '../../client/token-cache.js';
import { waitToRetry, type Sleep } from '../../shared/client-retry.js';
import type { Logger } from '../../shared/logger.js';
import type { RetryPolicy } from '../../shared/retry-options.js';
import { ApiPixRateLimitedError, apiPixErrorFrom, type ApiPixError } from './api-pix-errors.js';

/** One HTTP exchange as the transport needs it; the default sends it over mTLS with `node:https`. */
interface ApiPixHttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}
interface ApiPixHttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

interface MtlsTransportConfig {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  cert: string;
  key: string;
  ca: string | undefined;
  /** Scopes asked for with the token, space-separated; undefined: the PSP's default for the client. */
  scope: string | undefined;
  now: () => number;
  sleep: Sleep;
  retry: RetryPolicy;
  renewBeforeMs: number;
  requestTimeoutMs: number;
  /** Guarded. Told of every wait before a retry. */
  logger: Logger;
}

interface ApiPixCall {
  method: ApiPixHttpRequest['method'];
  /** Path and query, e.g. `/cob/abc`. */
  path: string;
  body?: unknown;
  /** Whether repeating the call can never do the work twice (GET, PUT to a chosen id, DELETE). */
  retrySafe: boolean;
  signal?: AbortSignal | undefined;
  /** Each HTTP attempt takes one read from it; spent, the call fails as a 429 without leaving. */
  budget?: ReadBudget | undefined;
}

interface MtlsTransport {
  call<S extends z.ZodType>(spec: ApiPixCall, schema: S): Promise<z.output<S>>;
  rateLimit(): RateLimitInfo | undefined;
  close(): void;
}

const maxAnswerBytes = 8 * 1024 * 1024;

/**
 * `node:https`, reached at run time: `pixhook/api-pix` also holds the receiver, which runs where no `node:https`
 * exists (web, workerd), so the entry point imports no Node built-in.
 */
function nodeHttps(): typeof import('node:https') {
  return process.getBuiltinModule('node:https');
}

function sendOverMtls(agent: Agent, request: ApiPixHttpRequest): Promise<ApiPixHttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = nodeHttps().request(
      request.url,
      { method: request.method, headers: request.headers, agent, signal: request.signal },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxAnswerBytes) res.destroy(new Error('the answer is larger than 8 MiB'));
          else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') headers.set(name, value);
            else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
          }
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function tokenFrom(body: unknown): { token: string; expiresInMs: number } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const token = record['access_token'];
  if (typeof token !== 'string' || token === '') return undefined;
  const expiresIn = record['expires_in'];
  // RFC 6749 gives seconds; a PSP that sends a string is read too. Without it, an hour (the usual default).
  const seconds = typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' ? Number(expiresIn) : Number.NaN;
  return { token, expiresInMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 3_600_000 };
}

export function createMtlsTransport(config: MtlsTransportConfig): MtlsTransport {
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  const agent = new (nodeHttps().Agent)({
    cert: config.cert,
    key: config.key,
    ...(config.ca !== undefined && { ca: config.ca }),
    keepAlive: true,
    maxSockets: 16,
  });
  const exchange = (request: ApiPixHttpRequest) => sendOverMtls(agent, request);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`, 'utf8').toString('base64')}`;
  let lastRateLimit: RateLimitInfo | undefined;

  const tokens = createTokenCache({
    now: config.now,
    renewBeforeMs: config.renewBeforeMs,
    fetchToken: async () => {
      const form = new URLSearchParams({ grant_type: 'client_credentials', ...(config.scope !== undefined && { scope: config.scope }) });
      const body = await attempt(
        { method: 'POST', path: config.tokenUrl, retrySafe: true },
        { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        form.toString(),
        false,
      );
      const parsed = tokenFrom(body);
      if (!parsed) throw new PixResponseError('POST token: the answer carries no access_token');
      return parsed;
    },
  });

  function operationOf(spec: ApiPixCall): string {
    if (/^https?:/i.test(spec.path)) return `${spec.method} token`;
    return `${spec.method} ${spec.path.replace(/\?.*$/, '')}`;
  }

  /** Runs one call with its retries; `refreshOn401` renews the token once on a 401, never in a loop. */
  async function attempt(
    spec: ApiPixCall,
    fixedHeaders: Record<string, string> | undefined,
    rawBody: string | undefined,
    refreshOn401: boolean,
  ): Promise<unknown> {
    const operation = operationOf(spec);
    const url = /^https?:/i.test(spec.path) ? spec.path : `${baseUrl}${spec.path}`;
    let refreshed = !refreshOn401;
    let retries = 0;
    for (;;) {
      spec.signal?.throwIfAborted();
      if (spec.budget !== undefined) {
        const waitMs = spec.budget.take();
        if (waitMs > 0) throw budgetSpent(operation, spec.budget.perMinute, waitMs);
      }
      const token = fixedHeaders === undefined ? await tokens.get() : undefined;
      const headers: Record<string, string> = fixedHeaders ?? {
        accept: 'application/json',
        authorization: `Bearer ${token as string}`,
        ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
      };
      const body = rawBody ?? (spec.body === undefined ? undefined : JSON.stringify(spec.body));
      const timeout = AbortSignal.timeout(config.requestTimeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
      let answer: ApiPixHttpAnswer;
      try {
        answer = await exchange({ method: spec.method, url, headers, ...(body !== undefined && { body }), signal });
      } catch (error) {
        spec.signal?.throwIfAborted();
        if (await waitToRetry(config, { operation, retrySafe: spec.retrySafe, retries, signal: spec.signal })) {
          retries++;
          continue;
        }
        const reason = error instanceof Error ? error.message : String(error);
        throw new PixNetworkError(`${operation}: no answer from the PSP (${reason})`, { cause: error });
      }
      const info = readRateLimit(answer.headers, operation, config.now());
      if (info) lastRateLimit = info;
      const parsed = parseJson(answer.text);
      if (answer.status >= 200 && answer.status < 300) return parsed;
      if (answer.status === 401 && !refreshed && token !== undefined) {
        refreshed = true;
        tokens.invalidate(token);
        continue;
      }
      const error = apiPixErrorFrom({ status: answer.status, body: parsed, operation, retryAfterSeconds: info?.retryAfterSeconds });
      const hint = answer.status === 429 ? rateLimitWaitMs(info, config.now()) : undefined;
      const retry = { operation, retrySafe: spec.retrySafe, retries, status: answer.status, hintMs: hint, error, signal: spec.signal };
      if (await waitToRetry(config, retry)) {
        retries++;
        continue;
      }
      throw error satisfies ApiPixError;
    }
  }

  return {
    async call(spec, schema) {
      const body = await attempt(spec, undefined, undefined, true);
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
        throw new PixResponseError(`${operationOf(spec)}: unexpected answer at ${where}: ${issue?.message ?? 'invalid'}`);
      }
      return parsed.data;
    },
    rateLimit: () => lastRateLimit,
    close: () => agent.destroy(),
  };
}

/** A spent read budget answers like the PSP's own 429, so every caller handles it one way. */
function budgetSpent(operation: string, perMinute: number, waitMs: number): ApiPixRateLimitedError {
  const retryAfter = Math.ceil(waitMs / 1000);
  const problem = {
    type: 'about:blank',
    title: 'Read budget spent',
    status: 429,
    detail: `the read budget (${perMinute} per minute) is spent; a read is free again in ${retryAfter} s`,
    violacoes: [],
  };
  return new ApiPixRateLimitedError(
    {
      status: 429,
      code: 'READ_BUDGET_SPENT',
      message: problem.detail,
      operation,
      details: { problem, limit: perMinute, retryAfter },
      retryAfter,
    },
    problem,
  );
}
