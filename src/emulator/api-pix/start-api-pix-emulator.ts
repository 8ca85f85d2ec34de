import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describeError } from '../../shared/describe-error.js';
import { mustBe } from '../../shared/option-checks.js';
import { createDeliveryFaults, type ActiveDeliveryFault, type DeliveryFault } from '../delivery-faults.js';
import { createFaultInjector, type EmulatorFault } from '../fault-injector.js';
import { RequestError, readBody } from '../http-io.js';
import { createApiPixDeliveries, type ApiPixBodyShape, type ApiPixDelivery } from './api-pix-deliveries.js';
import { resolveApiPixEmulatorOptions, type ApiPixEmulatorOptions } from './api-pix-emulator-options.js';
import { createApiPixState } from './api-pix-state.js';
import { ProblemAnswer } from './problem-answer.js';
import { makeRunCertificates, type ApiPixCertificatePaths } from './run-certificates.js';

/** A request fault of the api-pix profile: the gateway profile's, plus `retryAfter` (seconds) on a 429. */
export interface ApiPixRequestFault extends EmulatorFault {
  retryAfter?: number;
}

/** A delivery fault of the api-pix profile: the gateway profile's actions, plus body shapes and disabling. */
export type ApiPixDeliveryFault =
  DeliveryFault | { action: 'bare-array' | 'devolucoes-object'; times?: number } | { action: 'disable-after'; failures: number };

export interface ApiPixRequestLogEntry {
  method: string;
  path: string;
  status: number;
}

export interface ApiPixEmulator {
  /** e.g. `https://127.0.0.1:41234`: the client's `baseUrl`; the token is at `${url}/oauth/token`. */
  readonly url: string;
  readonly port: number;
  readonly profile: 'api-pix';
  /** File paths of the run's certificates: the server's (the merchant's receiver may serve it too), the client's (both the merchant's API client and the emulator's webhook calls present it), and the CA that signed both. */
  readonly certificates: ApiPixCertificatePaths;
  /** The OAuth2 credentials in force and the merchant's key. */
  readonly credentials: { clientId: string; clientSecret: string; pixKey: string };
  /** Pays a charge (`amountInCents` another amount): a Pix with its txid, notified. */
  pay(txid: string, payment?: { amountInCents?: number; infoPagador?: string }): Record<string, unknown>;
  /** A Pix to a key without a txid (a static QR code or a key transfer); notified unless `notify: false`. */
  pixToKey(input: { amountInCents: number; key?: string; infoPagador?: string; notify?: boolean }): Record<string, unknown>;
  /** A refund the PSP settles on its own (`natureza` `MED_FRAUDE` for a MED return), notified. */
  refund(
    endToEndId: string,
    input?: { id?: string; amountInCents?: number; status?: 'DEVOLVIDO' | 'NAO_REALIZADO'; natureza?: string },
  ): Record<string, unknown>;
  expire(txid: string): Record<string, unknown>;
  revokeTokens(): void;
  injectFault(fault: ApiPixRequestFault): void;
  injectDeliveryFault(fault: ApiPixDeliveryFault): ActiveDeliveryFault | { action: string };
  clearDeliveryFaults(): void;
  deliveries(): readonly ApiPixDelivery[];
  requests(): readonly ApiPixRequestLogEntry[];
  /** Every Pix received so far, oldest first, as `GET /pix` shows them. */
  pix(): Record<string, unknown>[];
  /** Resolves once every Pix received so far is sent and every delivery settled. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const requestFaultSchema = z.strictObject({
  method: z.string().optional(),
  path: z.string().startsWith('/'),
  action: z.enum(['drop-response', 'drop-request', 'status']),
  status: z.int().min(400).max(599).optional(),
  times: z.int().min(1).optional(),
  retryAfter: z.int().min(0).max(86_400).optional(),
});
const deliveryFaultSchema = z.union([
  z.strictObject({
    url: z.string().min(1).optional(),
    action: z.enum(['fail', 'timeout', 'drop', 'delay']),
    status: z.int().min(100).max(599).optional(),
    delayMs: z.int().min(1).max(86_400_000).optional(),
    times: z.int().min(1).optional(),
    forMs: z.number().positive().optional(),
  }),
  z.strictObject({ action: z.enum(['bare-array', 'devolucoes-object']), times: z.int().min(1).optional() }),
  z.strictObject({ action: z.literal('disable-after'), failures: z.int().min(1) }),
]);
const payBodySchema = z.strictObject({ amountInCents: z.int().min(1).optional(), infoPagador: z.string().max(140).optional() });
const pixBodySchema = z.strictObject({
  amountInCents: z.int().min(1),
  key: z.string().min(1).max(77).optional(),
  infoPagador: z.string().max(140).optional(),
  notify: z.boolean().optional(),
});
const refundControlSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-zA-Z0-9]{1,35}$/)
    .optional(),
  amountInCents: z.int().min(1).optional(),
  status: z.enum(['DEVOLVIDO', 'NAO_REALIZADO']).optional(),
  natureza: z.enum(['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO']).optional(),
});

function controlBody<S extends z.ZodType>(schema: S, bytes: Buffer): z.output<S> {
  let value: unknown = {};
  if (bytes.length > 0) {
    try {
      value = JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é JSON válido.');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', `${where}: ${issue?.message ?? 'invalid'}`, [
      { razao: issue?.message ?? 'invalid', propriedade: where },
    ]);
  }
  return parsed.data;
}

function jsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', 'Um corpo JSON é obrigatório.');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é JSON válido.');
  }
}

interface RouteContext {
  params: string[];
  query: URLSearchParams;
  body: Buffer;
  headers: IncomingMessage['headers'];
}
interface Route {
  method: string;
  pattern: RegExp;
  auth: 'bearer' | 'none';
  handle: (ctx: RouteContext) => { status: number; body?: unknown };
}

/** Starts an emulated standard PSP (bacen/pix-api) on `127.0.0.1` over mTLS, with certificates made for this run. */
export async function startApiPixEmulator(options: ApiPixEmulatorOptions): Promise<ApiPixEmulator> {
  const config = resolveApiPixEmulatorOptions(options);
  const dir = config.certificatesDir ?? (await mkdtemp(join(tmpdir(), 'pixhook-api-pix-')));
  const certificates = await makeRunCertificates(dir, config.hosts);
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const deliveryFaults = createDeliveryFaults(config.now);
  for (const [i, fault] of config.deliveryFaults.entries()) {
    const parsed = deliveryFaultSchema.safeParse(fault);
    if (!parsed.success)
      throw mustBe(`deliveryFaults[${i}]`, 'a delivery fault { action: "fail", "timeout", "drop" or "delay", … }', fault);
    deliveryFaults.add(fault);
  }
  const shapeFaults: Array<{ action: ApiPixBodyShape; left: number }> = [];
  let disableAfter = config.disableWebhookAfterFailures;
  const deliveries = createApiPixDeliveries({
    tls: { cert: certificates.pem.clientCert, key: certificates.pem.clientKey, ca: certificates.pem.ca },
    retry: config.retry,
    timeoutMs: config.deliveryTimeoutMs,
    groupWindowMs: config.groupWindowMs,
    maxGroup: config.maxGroup,
    now: config.now,
    faults: deliveryFaults,
    takeShape: () => {
      const fault = shapeFaults[0];
      if (!fault) return 'standard';
      if (--fault.left <= 0) shapeFaults.shift();
      return fault.action;
    },
    disableAfterFailures: () => disableAfter,
    closed: closing.signal,
  });
  const requestFaults = createFaultInjector();
  const tokens = new Map<string, { expiresAt: number; generation: number }>();
  let generation = 0;
  const log: ApiPixRequestLogEntry[] = [];
  const settleTimers = new Set<ReturnType<typeof setTimeout>>();
  let locationHost = 'pix.emulator.local';

  const state = createApiPixState({
    now: config.now,
    ispb: '12345678',
    get locationHost() {
      return locationHost;
    },
    notify: (pix) => deliveries.enqueue(state.webhookFor(pix.chave), pix, state.pixJson(pix)),
  });

  function bearer(headers: IncomingMessage['headers']): void {
    const token = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    const entry = token === undefined ? undefined : tokens.get(token);
    if (!entry || entry.generation !== generation || config.now() >= entry.expiresAt) {
      throw new ProblemAnswer(401, 'AcessoNegado', 'Não autorizado', 'O token de acesso está ausente, expirado ou revogado.');
    }
  }

  function issueToken(headers: IncomingMessage['headers'], body: Buffer): { status: number; body: unknown } {
    const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    const decoded = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const id = colon > 0 ? decodeURIComponent(decoded.slice(0, colon)) : '';
    const secret = colon > 0 ? decodeURIComponent(decoded.slice(colon + 1)) : '';
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
    if (!(sameSecret(id, config.clientId) && sameSecret(secret, config.clientSecret))) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Credenciais inválidas.' } };
    }
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, { expiresAt: config.now() + config.tokenTtlMs, generation });
    return {
      status: 200,
      body: {
        access_token: token,
        token_type: 'Bearer',
        expires_in: Math.floor(config.tokenTtlMs / 1000),
        scope: 'cob.write cob.read cobv.write cobv.read pix.write pix.read webhook.write webhook.read',
      },
    };
  }

  function scheduleSettle(e2eid: string, id: string): void {
    const timer = setTimeout(() => {
      settleTimers.delete(timer);
      state.settleRefund(e2eid, id, 'DEVOLVIDO');
    }, config.refundSettleMs);
    settleTimers.add(timer);
  }

  function addDeliveryFault(fault: ApiPixDeliveryFault): ActiveDeliveryFault | { action: string } {
    const parsed = deliveryFaultSchema.safeParse(fault);
    if (!parsed.success) {
      throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', parsed.error.issues[0]?.message ?? 'falha inválida');
    }
    const value = parsed.data;
    if (value.action === 'disable-after') {
      disableAfter = value.failures;
      return value;
    }
    if (value.action === 'bare-array' || value.action === 'devolucoes-object') {
      shapeFaults.push({ action: value.action, left: value.times ?? Number.POSITIVE_INFINITY });
      return value;
    }
    return deliveryFaults.add(value as DeliveryFault);
  }

  const routes: Route[] = [
    { method: 'PUT', pattern: /^\/cob\/([^/]+)$/, auth: 'bearer', handle: ({ params, body }) => put('cob', params[0] as string, body) },
    {
      method: 'POST',
      pattern: /^\/cob$/,
      auth: 'bearer',
      handle: ({ body }) => ({ status: 201, body: state.putCob('cob', state.newTxid(), jsonBody(body)).json }),
    },
    {
      method: 'GET',
      pattern: /^\/cob\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getCob('cob', params[0] as string) }),
    },
    {
      method: 'PATCH',
      pattern: /^\/cob\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params, body }) => ({ status: 200, body: state.patchCob(params[0] as string, jsonBody(body)) }),
    },
    { method: 'PUT', pattern: /^\/cobv\/([^/]+)$/, auth: 'bearer', handle: ({ params, body }) => put('cobv', params[0] as string, body) },
    {
      method: 'GET',
      pattern: /^\/cobv\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getCob('cobv', params[0] as string) }),
    },
    { method: 'GET', pattern: /^\/pix$/, auth: 'bearer', handle: ({ query }) => ({ status: 200, body: state.listPix(query) }) },
    {
      method: 'GET',
      pattern: /^\/pix\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getPix(params[0] as string) }),
    },
    {
      method: 'PUT',
      pattern: /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params, body }) => {
        const [e2eid, id] = params as [string, string];
        const result = state.requestRefund(e2eid, id, jsonBody(body));
        if (result.created) scheduleSettle(e2eid, id);
        return { status: 201, body: result.json };
      },
    },
    {
      method: 'GET',
      pattern: /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getRefund(params[0] as string, params[1] as string) }),
    },
    {
      method: 'PUT',
      pattern: /^\/webhook\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params, body }) => ({ status: 200, body: state.putWebhook(params[0] as string, jsonBody(body)) }),
    },
    {
      method: 'GET',
      pattern: /^\/webhook\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getWebhook(params[0] as string) }),
    },
    {
      method: 'DELETE',
      pattern: /^\/webhook\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => {
        state.deleteWebhook(params[0] as string);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: /^\/webhook$/,
      auth: 'bearer',
      handle: () => {
        const webhooks = state.listWebhooks();
        const paginacao = { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: webhooks.length };
        return { status: 200, body: { parametros: { paginacao }, webhooks } };
      },
    },
    // Emulator-only controls, on the same mTLS server: only a holder of the run's client certificate reaches them.
    {
      method: 'POST',
      pattern: /^\/_emulator\/cob\/([^/]+)\/pay$/,
      auth: 'none',
      handle: ({ params, body }) => ({ status: 200, body: pay(params[0] as string, controlBody(payBodySchema, body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/cob\/([^/]+)\/expire$/,
      auth: 'none',
      handle: ({ params }) => ({ status: 200, body: state.expire(params[0] as string) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/pix$/,
      auth: 'none',
      handle: ({ body }) => ({ status: 201, body: pixToKey(controlBody(pixBodySchema, body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/pix\/([^/]+)\/refund$/,
      auth: 'none',
      handle: ({ params, body }) => ({ status: 201, body: state.finalRefund(params[0] as string, controlBody(refundControlSchema, body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/tokens\/revoke$/,
      auth: 'none',
      handle: () => {
        generation++;
        return { status: 200, body: { message: 'Every token issued so far is revoked.' } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/faults$/,
      auth: 'none',
      handle: ({ body }) => {
        const fault = controlBody(requestFaultSchema, body);
        requestFaults.add(fault);
        return { status: 201, body: fault };
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/deliveries$/,
      auth: 'none',
      handle: () => ({ status: 200, body: { data: deliveries.deliveries() } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: ({ body }) => ({ status: 201, body: addDeliveryFault(jsonBody(body) as ApiPixDeliveryFault) }),
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => ({ status: 200, body: { data: deliveryFaults.list(), disableAfterFailures: disableAfter } }),
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => {
        clearDeliveryFaults();
        return { status: 204 };
      },
    },
  ];

  function put(kind: 'cob' | 'cobv', txid: string, body: Buffer): { status: number; body: unknown } {
    const result = state.putCob(kind, txid, jsonBody(body));
    return { status: result.created ? 201 : 200, body: result.json };
  }

  function pay(txid: string, payment: { amountInCents?: number | undefined; infoPagador?: string | undefined } = {}) {
    return state.pay(txid, payment);
  }

  function pixToKey(input: {
    amountInCents: number;
    key?: string | undefined;
    infoPagador?: string | undefined;
    notify?: boolean | undefined;
  }) {
    return state.pixToKey({
      chave: input.key ?? config.pixKey,
      amountInCents: input.amountInCents,
      infoPagador: input.infoPagador,
      notify: input.notify ?? true,
    });
  }

  function clearDeliveryFaults(): void {
    deliveryFaults.clear();
    shapeFaults.length = 0;
    disableAfter = config.disableWebhookAfterFailures;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const url = new URL(request.url ?? '/', 'https://emulator');
    const path = url.pathname;
    const record = (status: number) => void log.push({ method, path, status });
    const fault = requestFaults.take(method, path) as ApiPixRequestFault | undefined;
    if (fault?.action === 'drop-request') {
      record(0);
      request.socket.destroy();
      return;
    }
    try {
      const body = await readBody(request);
      if (fault?.action === 'status') {
        const status = fault.status ?? 503;
        const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
        throw status === 429
          ? new ProblemAnswer(429, 'LimiteExcedido', 'Limite de requisições excedido', 'Muitas requisições; tente mais tarde.', [], headers)
          : new ProblemAnswer(status, 'ServicoIndisponivel', 'Serviço Indisponível', 'Falha injetada pelo emulador.', [], headers);
      }
      let result: { status: number; body?: unknown };
      if (path === '/oauth/token') {
        if (method !== 'POST')
          throw new ProblemAnswer(405, 'MetodoNaoPermitido', 'Método não permitido', `${method} não é permitido em ${path}.`);
        result = issueToken(request.headers, body);
      } else {
        const candidates = routes.filter((r) => r.pattern.test(path));
        const route = candidates.find((r) => r.method === method);
        if (!route) {
          if (candidates.length > 0)
            throw new ProblemAnswer(405, 'MetodoNaoPermitido', 'Método não permitido', `${method} não é permitido em ${path}.`);
          throw new ProblemAnswer(404, 'NaoEncontrado', 'Não Encontrado', `Não há recurso ${method} ${path}.`);
        }
        if (route.auth === 'bearer') bearer(request.headers);
        result = route.handle({
          params: route.pattern.exec(path)?.slice(1).map(decodeURIComponent) ?? [],
          query: url.searchParams,
          body,
          headers: request.headers,
        });
      }
      if (fault?.action === 'drop-response') {
        record(0);
        request.socket.destroy();
        return;
      }
      record(result.status);
      send(response, result.status, result.body);
    } catch (error) {
      const problem =
        error instanceof ProblemAnswer
          ? error
          : error instanceof RequestError
            ? new ProblemAnswer(error.status, 'RequisicaoInvalida', 'Requisição inválida.', error.message, [], error.headers)
            : new ProblemAnswer(500, 'ErroInterno', 'Erro interno', 'Erro inesperado no emulador.');
      if (!(error instanceof ProblemAnswer) && !(error instanceof RequestError))
        console.error(`pixhook emulator (api-pix): unexpected error: ${describeError(error)}`);
      record(problem.status);
      send(response, problem.status, problem.body(), problem.headers, 'application/problem+json');
    }
  }

  const server = createServer(
    {
      cert: certificates.pem.serverCert,
      key: certificates.pem.serverKey,
      ca: certificates.pem.ca,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => void handle(request, response),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `https://${host}:${port}`;
  locationHost = `${host}:${port}`;

  return {
    url,
    port,
    profile: 'api-pix',
    certificates: certificates.paths,
    credentials: { clientId: config.clientId, clientSecret: config.clientSecret, pixKey: config.pixKey },
    pay: (txid, payment) => pay(txid, payment),
    pixToKey: (input) => pixToKey(input),
    refund: (e2eid, input = {}) => state.finalRefund(e2eid, input),
    expire: (txid) => state.expire(txid),
    revokeTokens: () => void generation++,
    injectFault: (fault) => requestFaults.add(controlBody(requestFaultSchema, Buffer.from(JSON.stringify(fault)))),
    injectDeliveryFault: addDeliveryFault,
    clearDeliveryFaults,
    deliveries: () => deliveries.deliveries(),
    requests: () => log,
    pix: () => state.pix(),
    idle: () => deliveries.idle(),
    async close() {
      closing.abort();
      deliveries.stop();
      for (const timer of settleTimers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deliveries.idle();
    },
  };
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  type = 'application/json',
): void {
  if (body === undefined) {
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
