import { createHash, timingSafeEqual } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { PayloadVariant } from '../index.js';
import { describeError } from '../shared/describe-error.js';
import { mustBe } from '../shared/option-checks.js';
import { resolveEmulatorOptions, type EmulatorOptions, type RateLimitedRoute } from './emulator-options.js';
import type { ChargeRecord, DeliveryRecord, RequestLogEntry, TransferRecord, WebhookRecord } from './emulator-records.js';
import { createTokenSigner } from './emulator-jwt.js';
import { createDeliveryFaults, type ActiveDeliveryFault, type DeliveryFault } from './delivery-faults.js';
import { createFaultInjector, type EmulatorFault } from './fault-injector.js';
import { createGatewayState, type EmulatorInfraction, type EmulatorPayment } from './gateway-state.js';
import { checkControlRequest } from './control-guard.js';
import { RequestError, errorBody, parseJsonBody, readBody, sendJson } from './http-io.js';
import { createRateLimiter } from './rate-limiter.js';
import { createWebhookDispatcher, retrySchedule } from './webhook-dispatcher.js';
import type { ApiPixEmulatorOptions } from './api-pix/api-pix-emulator-options.js';
import { startApiPixEmulator, type ApiPixEmulator } from './api-pix/start-api-pix-emulator.js';

export interface Emulator {
  /** e.g. `http://127.0.0.1:41234` — the client's `baseUrl`. */
  readonly url: string;
  readonly port: number;
  readonly variant: PayloadVariant;
  /** The credentials in force (generated when not given): the CLI prints them once for the developer. */
  readonly credentials: { apiKey: string; apiSecret: string; webhookSecret: string };
  /** Attempts per delivery (default 5) and the waits between them (default 1 s doubling), from `retry`. */
  readonly retry: { attempts: number; scheduleMs: readonly number[] };
  /** Stops serving, aborts deliveries in flight and pending transfer steps. */
  close(): Promise<void>;
  /** Resolves when every webhook delivery started so far has settled (delivered or out of attempts). */
  idle(): Promise<void>;
  /** Pays the charge: pending, again when paid (a second payment, its own endToEndId), or after it expired. */
  pay(id: string, payment?: EmulatorPayment): ChargeRecord;
  /** Opens a MED dispute on a paid charge and sends `transaction_infraction`. */
  infraction(id: string, details?: EmulatorInfraction): ChargeRecord;
  expire(id: string): ChargeRecord;
  refund(id: string, reason?: string): ChargeRecord;
  /** Makes every token issued so far answer 401 (as after a key rotation). */
  revokeTokens(): void;
  injectFault(fault: EmulatorFault): void;
  /** Makes deliveries (to `fault.url`, or all) fail, time out or drop, for `times` attempts or `forMs`. */
  injectDeliveryFault(fault: DeliveryFault): ActiveDeliveryFault;
  /** Removes one delivery fault, or every one without an id. */
  clearDeliveryFaults(id?: string): void;
  deliveryFaults(): ActiveDeliveryFault[];
  /** Sends a delivery's exact body again as a new delivery (5 attempts), like a dashboard's resend. */
  redeliver(deliveryId: string): DeliveryRecord;
  charges(): ChargeRecord[];
  transfers(): TransferRecord[];
  webhooks(): WebhookRecord[];
  deliveries(): readonly DeliveryRecord[];
  /** Every request answered, oldest first (status 0 for a dropped connection). No credentials. */
  requests(): readonly RequestLogEntry[];
}

type Auth = 'basic' | 'bearer' | 'none';
interface RouteContext {
  params: string[];
  query: URLSearchParams;
  body: Buffer;
  headers: IncomingMessage['headers'];
}
interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
interface Route {
  method: string;
  pattern: RegExp;
  auth: Auth;
  limit?: RateLimitedRoute;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));
const payBodySchema = z
  .object({
    payer: z
      .object({
        name: z.string().optional(),
        document: z.string().optional(),
        bank: z.string().optional(),
        branch: z.string().optional(),
        accountType: z.string().optional(),
        accountNumber: z.string().optional(),
      })
      .optional(),
    amountInCents: z.int().min(1).optional(),
    reason: z.string().max(140).optional(),
  })
  .optional();

const infractionBodySchema = z
  .object({
    id: z.string().min(1).max(100).optional(),
    status: z.string().min(1).max(40).optional(),
    reason: z.string().min(1).max(140).optional(),
    amountInCents: z.int().min(1).optional(),
    openedAt: z.iso.datetime({ offset: true }).optional(),
  })
  .optional();

const deliveryFaultSchema = z
  .strictObject({
    url: z.string().min(1).optional(),
    action: z.enum(['fail', 'timeout', 'drop', 'delay']),
    status: z.int().min(100).max(599).optional(),
    delayMs: z.int().min(1).max(86_400_000).optional(),
    times: z.int().min(1).optional(),
    forMs: z.number().positive().optional(),
  })
  .refine((fault) => (fault.action === 'delay') === (fault.delayMs !== undefined), {
    message: 'delayMs goes with action "delay", and "delay" needs delayMs',
    path: ['delayMs'],
  });

function checkDeliveryFault(name: string, fault: DeliveryFault): DeliveryFault {
  const parsed = deliveryFaultSchema.safeParse(fault);
  if (parsed.success) return fault;
  const issue = parsed.error.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  const given = (issue?.path ?? []).reduce<unknown>(
    (value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined),
    fault,
  );
  throw mustBe(
    `${name}${path}`,
    `a delivery fault { action: "fail", "timeout", "drop" or "delay", url?, status? (100 to 599), delayMs? (with "delay", 1 to 86400000), times? (from 1), forMs? (over 0) } (${issue?.message ?? 'invalid'})`,
    given,
  );
}

const faultSchema = z.object({
  method: z.string().optional(),
  path: z.string().startsWith('/'),
  action: z.enum(['drop-response', 'drop-request', 'status']),
  status: z.int().min(400).max(599).optional(),
  times: z.int().min(1).optional(),
});

function optionalJson<S extends z.ZodType>(bytes: Buffer, schema: S = payBodySchema as unknown as S): z.infer<S> | undefined {
  if (bytes.length === 0) return undefined;
  const parsed = schema.safeParse(parseJsonBody(bytes));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    throw new RequestError(400, 'INVALID_REQUEST', `${where}${issue?.message ?? 'invalid body'}`);
  }
  return parsed.data as z.infer<S>;
}

/** The pay body as `pay` takes it: `{ amountInCents?, payer? }`. */
function paymentFrom(bytes: Buffer): EmulatorPayment {
  const body = optionalJson(bytes, payBodySchema);
  return { ...(body?.amountInCents !== undefined && { amountInCents: body.amountInCents }), ...(body?.payer && { payer: body.payer }) };
}

/**
 * Starts an in-memory emulator of the gateway on `127.0.0.1` (a free port unless `port` is given), or with
 * `profile: 'api-pix'` a standard PSP (bacen/pix-api) over mTLS.
 */
export function startEmulator(options: ApiPixEmulatorOptions): Promise<ApiPixEmulator>;
export function startEmulator(options?: EmulatorOptions): Promise<Emulator>;
export function startEmulator(options: EmulatorOptions | ApiPixEmulatorOptions = {}): Promise<Emulator | ApiPixEmulator> {
  const profile = (options as { profile?: unknown } | undefined)?.profile;
  if (profile === 'api-pix') return startApiPixEmulator(options as ApiPixEmulatorOptions);
  if (profile !== undefined && profile !== 'gateway') return Promise.reject(mustBe('profile', '"gateway" or "api-pix"', profile));
  return startGatewayEmulator(options as EmulatorOptions);
}

async function startGatewayEmulator(options: EmulatorOptions): Promise<Emulator> {
  const config = resolveEmulatorOptions(options);
  const closing = new AbortController();
  // Every delivery in flight listens for the close: many at once are expected, not a leak.
  setMaxListeners(0, closing.signal);
  const deliveryFaults = createDeliveryFaults(config.now);
  for (const [i, fault] of config.deliveryFaults.entries()) deliveryFaults.add(checkDeliveryFault(`deliveryFaults[${i}]`, fault));
  const dispatcher = createWebhookDispatcher({
    variant: config.variant,
    webhookSecret: config.webhookSecret,
    signature: config.signature,
    faults: deliveryFaults,
    onAttempt: config.onDeliveryAttempt,
    retry: config.retry,
    timeoutMs: config.deliveryTimeoutMs,
    now: config.now,
    closed: closing.signal,
    onSettled: config.onDelivery,
  });
  const state = createGatewayState(config, dispatcher);
  const signer = createTokenSigner();
  const limiter = createRateLimiter(config.now);
  const faults = createFaultInjector();
  const log: RequestLogEntry[] = [];
  let generation = 0;
  const retryInfo = { attempts: config.retry.attempts, scheduleMs: retrySchedule(config.retry) };

  function redeliver(id: string): DeliveryRecord {
    const original = dispatcher.deliveries().find((d) => d.id === id);
    if (!original) throw new RequestError(404, 'NOT_FOUND', `No delivery with id ${id}.`);
    if (original.state === 'pending') throw new RequestError(422, 'DELIVERY_PENDING', `Delivery ${id} is still being attempted.`);
    const webhook = original.webhookId === undefined ? undefined : state.webhooks().find((w) => w.id === original.webhookId);
    return dispatcher.redeliver(id, webhook) as DeliveryRecord;
  }

  function basicAuth(headers: IncomingMessage['headers']): void {
    const header = headers.authorization ?? '';
    const match = /^Basic\s+(\S+)$/i.exec(header);
    const decoded = match ? Buffer.from(match[1] as string, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const ok = colon > 0 && sameSecret(decoded.slice(0, colon), config.apiKey) && sameSecret(decoded.slice(colon + 1), config.apiSecret);
    if (!ok) throw new RequestError(401, 'UNAUTHORIZED', 'Invalid API credentials.');
  }

  function bearerAuth(headers: IncomingMessage['headers']): void {
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    const claims = match ? signer.read(match[1] as string) : undefined;
    if (!claims) throw new RequestError(401, 'UNAUTHORIZED', 'Missing or invalid access token.');
    if (claims.gen !== generation) throw new RequestError(401, 'UNAUTHORIZED', 'The access token was revoked.');
    if (config.now() >= claims.expMs) throw new RequestError(401, 'UNAUTHORIZED', 'The access token has expired.');
  }

  const routes: Route[] = [
    {
      method: 'POST',
      pattern: /^\/api\/auth$/,
      auth: 'none',
      limit: 'auth',
      handle: ({ body, headers }) => {
        if (body.length > 0) throw new RequestError(400, 'INVALID_REQUEST', 'The authentication operation accepts no body.');
        basicAuth(headers);
        const issuedAt = config.now();
        const token = signer.issue({
          sub: config.apiKey,
          iat: Math.floor(issuedAt / 1000),
          expMs: issuedAt + config.tokenTtlMs,
          gen: generation,
        });
        return { status: 200, body: { success: true, token, tokenType: 'Bearer', expiresIn: config.tokenTtlMs } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/pix\/in\/qrcode$/,
      auth: 'bearer',
      limit: 'createCharge',
      handle: async ({ body }) => ({ status: config.variant === 'a' ? 201 : 200, body: await state.createCharge(parseJsonBody(body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/pix\/out\/pixkey$/,
      auth: 'bearer',
      limit: 'sendTransfer',
      handle: ({ body, headers }) => {
        const key = headerValue(headers['x-idempotency-key']) ?? headerValue(headers['idempotency-key']);
        const result = state.sendTransfer(parseJsonBody(body), key);
        const replayed: Record<string, string> = result.replayed ? { 'Idempotent-Replayed': 'true' } : {};
        return { status: 200, body: result.body, headers: replayed };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/company$/,
      auth: 'bearer',
      limit: 'readCompany',
      handle: () => ({ status: 200, body: state.company() }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/transactions\/([^/]+)$/,
      auth: 'bearer',
      limit: 'readTransaction',
      handle: ({ params }) => ({ status: 200, body: state.readTransaction(params[0] as string) }),
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/webhook$/,
      auth: 'bearer',
      limit: 'registerWebhook',
      handle: ({ body }) => ({ status: 201, body: state.registerWebhook(parseJsonBody(body)) }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/webhook$/,
      auth: 'bearer',
      limit: 'listWebhooks',
      handle: () => ({ status: 200, body: state.listWebhooks() }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/webhook\/([^/]+)$/,
      auth: 'bearer',
      limit: 'listWebhooks',
      handle: ({ params }) => ({ status: 200, body: state.readWebhook(params[0] as string) }),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/v1\/webhook\/([^/]+)$/,
      auth: 'bearer',
      limit: 'deleteWebhook',
      handle: ({ params }) => ({ status: 200, body: state.deleteWebhook(params[0] as string) }),
    },
    // Emulator-only controls: no credentials, local use only.
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/pay$/,
      auth: 'none',
      handle: ({ params, body }) => ({ status: 200, body: { success: true, data: state.pay(params[0] as string, paymentFrom(body)) } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/infraction$/,
      auth: 'none',
      handle: ({ params, body }) => ({
        status: 200,
        body: { success: true, data: state.infraction(params[0] as string, optionalJson(body, infractionBodySchema) ?? {}) },
      }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/expire$/,
      auth: 'none',
      handle: ({ params }) => ({ status: 200, body: { success: true, data: state.expire(params[0] as string) } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/refund$/,
      auth: 'none',
      handle: ({ params, body }) => ({
        status: 200,
        body: { success: true, data: state.refund(params[0] as string, optionalJson(body, payBodySchema)?.reason) },
      }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/tokens\/revoke$/,
      auth: 'none',
      handle: () => {
        generation++;
        return { status: 200, body: { success: true, message: 'Every token issued so far is revoked.' } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/faults$/,
      auth: 'none',
      handle: ({ body }) => {
        const parsed = faultSchema.safeParse(parseJsonBody(body));
        if (!parsed.success) throw new RequestError(400, 'INVALID_REQUEST', parsed.error.issues[0]?.message ?? 'invalid fault');
        faults.add(parsed.data);
        return { status: 201, body: { success: true, data: parsed.data } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/deliveries$/,
      auth: 'none',
      handle: ({ query }) => {
        const url = query.get('url');
        const resourceId = query.get('resourceId');
        const state = query.get('state');
        const data = dispatcher
          .deliveries()
          .filter(
            (d) =>
              (url === null || d.url === url) &&
              (resourceId === null || d.resourceId === resourceId) &&
              (state === null || d.state === state),
          );
        return { status: 200, body: { success: true, retry: retryInfo, data } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/deliveries\/([^/]+)\/redeliver$/,
      auth: 'none',
      handle: ({ params }) => ({ status: 201, body: { success: true, data: redeliver(params[0] as string) } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: ({ body }) => {
        const parsed = deliveryFaultSchema.safeParse(parseJsonBody(body));
        if (!parsed.success) throw new RequestError(400, 'INVALID_REQUEST', parsed.error.issues[0]?.message ?? 'invalid delivery fault');
        return { status: 201, body: { success: true, data: deliveryFaults.add(parsed.data as DeliveryFault) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => ({ status: 200, body: { success: true, data: deliveryFaults.list() } }),
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => {
        deliveryFaults.clear();
        return { status: 200, body: { success: true, message: 'Every delivery fault is removed.' } };
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults\/([^/]+)$/,
      auth: 'none',
      handle: ({ params }) => {
        if (!deliveryFaults.remove(params[0] as string)) throw new RequestError(404, 'NOT_FOUND', 'No such delivery fault.');
        return { status: 200, body: { success: true, message: 'Delivery fault removed.' } };
      },
    },
  ];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const requestUrl = new URL(request.url ?? '/', 'http://emulator');
    const path = requestUrl.pathname;
    const idempotencyKey = headerValue(request.headers['x-idempotency-key']) ?? headerValue(request.headers['idempotency-key']);
    const record = (status: number) => {
      const entry: RequestLogEntry = { method, path, status, ...(idempotencyKey && { idempotencyKey }) };
      log.push(entry);
      config.onRequest(entry);
    };
    const fault = faults.take(method, path);
    if (fault?.action === 'drop-request') {
      record(0);
      request.socket.destroy();
      return;
    }
    let headers: Record<string, string> = {};
    try {
      const body = await readBody(request);
      if (path.startsWith('/_emulator/')) checkControlRequest(request, method, body);
      if (fault?.action === 'status') {
        const status = fault.status ?? 503;
        throw new RequestError(status, status >= 500 ? 'SERVER_ERROR' : 'INJECTED_FAULT', 'Fault injected by the emulator.');
      }
      const candidates = routes.filter((r) => r.pattern.test(path));
      const route = candidates.find((r) => r.method === method);
      if (!route) {
        if (candidates.length > 0) throw new RequestError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}.`);
        throw new RequestError(404, 'NOT_FOUND', `No endpoint ${method} ${path}.`);
      }
      if (route.auth === 'bearer') bearerAuth(request.headers);
      if (route.limit) {
        const limit = config.rateLimits[route.limit];
        if (Number.isFinite(limit)) {
          const subject = route.auth === 'none' ? authLimitSubject(request, config.variant) : config.apiKey;
          // Variant A's summary limits every query together ("queries 100 per minute per company").
          const bucket = config.variant === 'a' && queryRoutes.has(route.limit) ? 'queries' : route.limit;
          const decision = limiter.take(`${bucket}|${digest(subject).toString('hex')}`, { limit, windowSeconds: 60 });
          headers = decision.headers;
          if (!decision.allowed) {
            const retryAfter = decision.retryAfterSeconds;
            throw new RequestError(
              429,
              config.variant === 'a' ? 'RATE_LIMITED' : 'RATE_LIMIT_EXCEEDED',
              'Too many requests; retry later.',
              {
                limit: decision.rule.limit,
                window: decision.rule.windowSeconds,
                retryAfter,
              },
            );
          }
        }
      }
      const result = await route.handle({
        params: route.pattern.exec(path)?.slice(1).map(decodeURIComponent) ?? [],
        query: requestUrl.searchParams,
        body,
        headers: request.headers,
      });
      if (fault?.action === 'drop-response') {
        record(0);
        request.socket.destroy();
        return;
      }
      record(result.status);
      sendJson(response, result.status, result.body, { ...headers, ...result.headers });
    } catch (error) {
      const known = error instanceof RequestError ? error : new RequestError(500, 'SERVER_ERROR', 'Unexpected emulator error.');
      if (!(error instanceof RequestError)) console.error(`pixhook emulator: unexpected error: ${describeError(error)}`);
      record(known.status);
      sendJson(response, known.status, errorBody(config.variant, known, config.now()), { ...headers, ...known.headers });
    }
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  return {
    url: `http://${host}:${port}`,
    port,
    variant: config.variant,
    credentials: { apiKey: config.apiKey, apiSecret: config.apiSecret, webhookSecret: config.webhookSecret },
    retry: retryInfo,
    async close() {
      closing.abort();
      state.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.idle();
    },
    idle: () => dispatcher.idle(),
    pay: (id, payment) => state.pay(id, payment),
    infraction: (id, details) => state.infraction(id, details),
    expire: (id) => state.expire(id),
    refund: (id, reason) => state.refund(id, reason),
    revokeTokens: () => void generation++,
    injectFault: (fault) => faults.add(fault),
    injectDeliveryFault: (fault) => deliveryFaults.add(checkDeliveryFault('fault', fault)),
    clearDeliveryFaults: (id) => (id === undefined ? deliveryFaults.clear() : void deliveryFaults.remove(id)),
    deliveryFaults: () => deliveryFaults.list(),
    redeliver,
    charges: state.charges,
    transfers: state.transfers,
    webhooks: state.webhooks,
    deliveries: dispatcher.deliveries,
    requests: () => log,
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

const queryRoutes: ReadonlySet<string> = new Set(['readCompany', 'readTransaction', 'listWebhooks', 'registerWebhook', 'deleteWebhook']);

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
