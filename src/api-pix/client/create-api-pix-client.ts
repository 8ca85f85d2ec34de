import type { z } from 'zod';
import { abortableSleep } from '../../client/abortable-sleep.js';
import { PixValidationError, validationErrorFrom } from '../../client/client-errors.js';
import type { RateLimitInfo } from '../../client/rate-limit.js';
import type { ExpectedCharge } from '../../index.js';
import { describeError } from '../../shared/describe-error.js';
import { guardLogger } from '../../shared/logger.js';
import { checkDelayMs, checkTimeoutMs, describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { resolveRetry } from '../../shared/retry-options.js';
import { withTimeout } from '../../shared/with-timeout.js';
import type { ApiPixClientOptions } from './api-pix-client-options.js';
import {
  amountInCents as amountSchema,
  createChargeInputSchema,
  createDueChargeInputSchema,
  endToEndIdSchema,
  keySchema,
  listPixInputSchema,
  refundIdSchema,
  refundInputSchema,
  txidToRead,
  webhookUrlSchema,
  type ApiPixRefundOptions,
  type CreateApiPixChargeInput,
  type CreateApiPixDueChargeInput,
  type ListPixInput,
} from './api-pix-inputs.js';
import {
  chargeFrom,
  chargeSchema,
  pixFrom,
  pixPageSchema,
  pixSchema,
  refundFrom,
  refundSchema,
  webhookFrom,
  webhookSchema,
  type ApiPixCharge,
  type ApiPixReceived,
  type ApiPixRefund,
  type ApiPixWebhook,
} from './api-pix-schemas.js';
import { decimalFromCents } from './decimal-amount.js';
import { createMtlsTransport } from './mtls-transport.js';
import { readPem } from './pem-source.js';
import { z as zod } from 'zod';
import { optionNames, refuseUnknownOptions } from '../../shared/known-options.js';

export interface ApiPixCallOptions {
  signal?: AbortSignal;
}

/** Whether `createApiPixClient({ book })` recorded the charge's expectation; a failure never fails the charge. */
export type ApiPixExpectStatus = { ok: true } | { ok: false; error: unknown };

export interface ApiPixCreatedCharge extends ApiPixCharge {
  /** Present when the client has a `book`. */
  expected?: ApiPixExpectStatus;
}

export interface ApiPixClient {
  /** `PUT /cob/{txid}` (retried when safe: the txid makes it idempotent), or `POST /cob` without a txid (never retried). */
  createCharge(input: CreateApiPixChargeInput, options?: ApiPixCallOptions): Promise<ApiPixCreatedCharge>;
  /** `GET /cob/{txid}`. */
  getCharge(txid: string, options?: ApiPixCallOptions): Promise<ApiPixCharge>;
  /** `PUT /cobv/{txid}`. */
  createDueCharge(input: CreateApiPixDueChargeInput, options?: ApiPixCallOptions): Promise<ApiPixCreatedCharge>;
  /** `GET /cobv/{txid}`. */
  getDueCharge(txid: string, options?: ApiPixCallOptions): Promise<ApiPixCharge>;
  /** `GET /pix/{e2eid}`. */
  getPix(endToEndId: string, options?: ApiPixCallOptions): Promise<ApiPixReceived>;
  /** `GET /pix?inicio&fim`, page after page of `paginacao`, each page one read. */
  listPix(input: ListPixInput, options?: ApiPixCallOptions): AsyncIterableIterator<ApiPixReceived>;
  /** `PUT /pix/{e2eid}/devolucao/{id}`: `refundId` is yours, so a retry never refunds twice. */
  refund(
    endToEndId: string,
    refundId: string,
    amountInCents: number,
    options?: ApiPixRefundOptions & ApiPixCallOptions,
  ): Promise<ApiPixRefund>;
  /** `GET /pix/{e2eid}/devolucao/{id}`. */
  getRefund(endToEndId: string, refundId: string, options?: ApiPixCallOptions): Promise<ApiPixRefund>;
  /** `PUT /webhook/{chave}`; `configureWebhook(url)` uses the client's `pixKey`. */
  configureWebhook(url: string): Promise<void>;
  configureWebhook(key: string, url: string, options?: ApiPixCallOptions): Promise<void>;
  /** `GET /webhook/{chave}` (default: the client's `pixKey`). */
  getWebhook(key?: string, options?: ApiPixCallOptions): Promise<ApiPixWebhook>;
  /** `DELETE /webhook/{chave}` (default: the client's `pixKey`). */
  deleteWebhook(key?: string, options?: ApiPixCallOptions): Promise<void>;
  /** The last `X-RateLimit-*` / `Retry-After` figures seen, if any. */
  rateLimit(): RateLimitInfo | undefined;
  /** The merchant's receiving key, if given. */
  readonly pixKey: string | undefined;
  /** Closes the kept-alive connections (a process with a client still open exits anyway once idle). */
  close(): void;
}

const expectTimeoutMs = 5_000;

function validate<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationErrorFrom(operation, parsed.error);
  return parsed.data;
}

function requireText(name: keyof ApiPixClientOptions, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a non-empty string, got ${describeGiven(value)}`);
  return value;
}

function checkHttpsUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PixhookConfigError(`pixhook: \`${name}\` must be an https URL, got ${describeGiven(value)}`);
  }
  if (url.protocol !== 'https:')
    throw new PixhookConfigError(`pixhook: \`${name}\` must be an https URL (the API Pix is mTLS), got ${url.protocol}`);
  return value.replace(/\/+$/, '');
}

/** The payment step's expiry for a created charge: `criacao + expiracao`, or the end of a due charge's last day. */
function expiryOf(charge: ApiPixCharge, now: number): string | undefined {
  if (charge.expiresInSeconds !== undefined) {
    const created = charge.createdAt === undefined ? Number.NaN : Date.parse(charge.createdAt);
    return new Date((Number.isFinite(created) ? created : now) + charge.expiresInSeconds * 1000).toISOString();
  }
  if (charge.dueDate !== undefined) {
    const last = new Date(`${charge.dueDate}T23:59:59-03:00`);
    if (Number.isNaN(last.getTime())) return undefined;
    return new Date(last.getTime() + (charge.validAfterDueDays ?? 30) * 86_400_000).toISOString();
  }
  return undefined;
}

/** A client of a PSP's standard API Pix (Banco Central's `bacen/pix-api`), over mTLS with OAuth2 client credentials. */
export function createApiPixClient(options: ApiPixClientOptions): ApiPixClient {
  refuseUnknownOptions(options, createApiPixClientOptionNames, 'createApiPixClient');
  if (typeof options !== 'object' || options === null)
    throw new PixhookConfigError(`pixhook: \`options\` of createApiPixClient must be an object, got ${describeGiven(options)}`);
  const baseUrl = checkHttpsUrl('baseUrl', requireText('baseUrl', options.baseUrl));
  const tokenUrl =
    options.tokenUrl === undefined ? `${baseUrl}/oauth/token` : checkHttpsUrl('tokenUrl', requireText('tokenUrl', options.tokenUrl));
  const clientId = requireText('clientId', options.clientId);
  const clientSecret = requireText('clientSecret', options.clientSecret);
  const cert = readPem('cert', options.cert);
  const key = readPem('key', options.key);
  const ca = options.ca === undefined ? undefined : readPem('ca', options.ca);
  const pixKey = options.pixKey === undefined ? undefined : requireText('pixKey', options.pixKey);
  const scope = options.scope === undefined ? undefined : requireText('scope', options.scope);
  if (options.readBudget !== undefined && typeof (options.readBudget as { take?: unknown } | null)?.take !== 'function') {
    throw new PixhookConfigError(
      `pixhook: \`readBudget\` must be a read budget (readBudget({ perMinute })), got ${describeGiven(options.readBudget)}`,
    );
  }
  if (options.book !== undefined && typeof (options.book as { expect?: unknown } | null)?.expect !== 'function') {
    throw new PixhookConfigError(`pixhook: \`book\` must be a payment book (e.g. memoryPaymentBook()), got ${describeGiven(options.book)}`);
  }
  const now = options.now ?? Date.now;
  const book = options.book;
  const readBudget = options.readBudget;
  const logger = guardLogger(options.logger);
  const transport = createMtlsTransport({
    baseUrl,
    tokenUrl,
    clientId,
    clientSecret,
    cert,
    key,
    ca,
    scope,
    now,
    sleep: options.sleep ?? abortableSleep,
    retry: resolveRetry('retry', options.retry, { attempts: 4, backoff: { delayMs: 500, factor: 2, maxDelayMs: 60_000 } }),
    renewBeforeMs: options.renewBeforeMs === undefined ? 60_000 : checkDelayMs('renewBeforeMs', options.renewBeforeMs),
    requestTimeoutMs: options.requestTimeoutMs === undefined ? 30_000 : checkTimeoutMs('requestTimeoutMs', options.requestTimeoutMs),
    logger,
  });

  function keyFor(operation: string, given: string | undefined): string {
    const chosen = given ?? pixKey;
    if (chosen === undefined)
      throw new PixValidationError(operation, [{ path: 'key', message: 'required (or give the client a `pixKey`)' }]);
    return validate(operation, keySchema, chosen);
  }

  async function expect(charge: ApiPixCharge): Promise<ApiPixExpectStatus | undefined> {
    if (!book) return undefined;
    // No payer document: the standard's Pix notification never carries the payer's, so the book could not check it.
    const expiresAt = expiryOf(charge, now());
    const expected: ExpectedCharge = {
      id: charge.txid,
      amountInCents: charge.amountInCents,
      ...(expiresAt !== undefined && { expiresAt }),
    };
    try {
      await withTimeout(
        Promise.resolve().then(() => book.expect(expected)),
        expectTimeoutMs,
        `book.expect(${charge.txid})`,
      );
      return { ok: true };
    } catch (error) {
      logger.error(
        { txid: charge.txid, error: describeError(error) },
        'pixhook api-pix client: the payment book could not record the charge; its payment will be judged without an expectation',
      );
      return { ok: false, error };
    }
  }

  async function created(charge: ApiPixCharge): Promise<ApiPixCreatedCharge> {
    const expected = await expect(charge);
    return expected === undefined ? charge : { ...charge, expected };
  }

  function readCharge(kind: 'cob' | 'cobv', operation: string, txid: string, call: ApiPixCallOptions | undefined) {
    const safe = validate(operation, txidToRead, txid);
    return transport
      .call({ method: 'GET', path: `/${kind}/${safe}`, retrySafe: true, signal: call?.signal, budget: readBudget }, chargeSchema)
      .then(chargeFrom);
  }

  async function* listPix(input: ListPixInput, call?: ApiPixCallOptions): AsyncIterableIterator<ApiPixReceived> {
    const query = validate('listPix', listPixInputSchema, input);
    const pageSize = query.pageSize ?? 100;
    for (let page = 0; ; page++) {
      const params = new URLSearchParams({ inicio: query.from, fim: query.to });
      if (query.txid !== undefined) params.set('txid', query.txid);
      if (query.cpf !== undefined) params.set('cpf', query.cpf);
      if (query.cnpj !== undefined) params.set('cnpj', query.cnpj);
      params.set('paginacao.paginaAtual', String(page));
      params.set('paginacao.itensPorPagina', String(pageSize));
      const answer = await transport.call(
        { method: 'GET', path: `/pix?${params.toString()}`, retrySafe: true, signal: call?.signal, budget: readBudget },
        pixPageSchema,
      );
      for (const pix of answer.pix ?? []) yield pixFrom(pix);
      const pages = answer.parametros.paginacao.quantidadeDePaginas;
      if (page + 1 >= pages || (answer.pix ?? []).length === 0) return;
    }
  }

  async function configureWebhook(keyOrUrl: string, url?: string, call?: ApiPixCallOptions): Promise<void> {
    const [givenKey, givenUrl] = url === undefined ? [undefined, keyOrUrl] : [keyOrUrl, url];
    const chave = keyFor('configureWebhook', givenKey);
    const webhookUrl = validate('configureWebhook', webhookUrlSchema, givenUrl);
    await transport.call(
      { method: 'PUT', path: `/webhook/${encodeURIComponent(chave)}`, body: { webhookUrl }, retrySafe: true, signal: call?.signal },
      zod.unknown(),
    );
  }

  return {
    async createCharge(input, call) {
      const body = validate('createCharge', createChargeInputSchema, input);
      const chave = keyFor('createCharge', body.key);
      const request = {
        calendario: { expiracao: body.expiresInSeconds ?? 3600 },
        ...(body.payer && {
          devedor: 'cpf' in body.payer ? { cpf: body.payer.cpf, nome: body.payer.name } : { cnpj: body.payer.cnpj, nome: body.payer.name },
        }),
        valor: { original: decimalFromCents(body.amountInCents) },
        chave,
        ...(body.payerRequest !== undefined && { solicitacaoPagador: body.payerRequest }),
        ...(body.additionalInfo && { infoAdicionais: body.additionalInfo.map((info) => ({ nome: info.name, valor: info.value })) }),
      };
      const raw = await transport.call(
        body.txid === undefined
          ? { method: 'POST', path: '/cob', body: request, retrySafe: false, signal: call?.signal }
          : { method: 'PUT', path: `/cob/${body.txid}`, body: request, retrySafe: true, signal: call?.signal },
        chargeSchema,
      );
      return created(chargeFrom(raw));
    },

    getCharge: (txid, call) => readCharge('cob', 'getCharge', txid, call),

    async createDueCharge(input, call) {
      const body = validate('createDueCharge', createDueChargeInputSchema, input);
      const chave = keyFor('createDueCharge', body.key);
      const request = {
        calendario: { dataDeVencimento: body.dueDate, validadeAposVencimento: body.validAfterDueDays ?? 30 },
        devedor: 'cpf' in body.payer ? { cpf: body.payer.cpf, nome: body.payer.name } : { cnpj: body.payer.cnpj, nome: body.payer.name },
        valor: { original: decimalFromCents(body.amountInCents) },
        chave,
        ...(body.payerRequest !== undefined && { solicitacaoPagador: body.payerRequest }),
        ...(body.additionalInfo && { infoAdicionais: body.additionalInfo.map((info) => ({ nome: info.name, valor: info.value })) }),
      };
      const raw = await transport.call(
        { method: 'PUT', path: `/cobv/${body.txid}`, body: request, retrySafe: true, signal: call?.signal },
        chargeSchema,
      );
      return created(chargeFrom(raw));
    },

    getDueCharge: (txid, call) => readCharge('cobv', 'getDueCharge', txid, call),

    async getPix(endToEndId, call) {
      const e2eid = validate('getPix', endToEndIdSchema, endToEndId);
      const raw = await transport.call(
        { method: 'GET', path: `/pix/${e2eid}`, retrySafe: true, signal: call?.signal, budget: readBudget },
        pixSchema,
      );
      return pixFrom(raw);
    },

    listPix,

    async refund(endToEndId, refundId, amountInCents, refundOptions) {
      const e2eid = validate('refund', endToEndIdSchema, endToEndId);
      const id = validate('refund', refundIdSchema, refundId);
      validate('refund', amountSchema, amountInCents);
      const { signal, ...rest } = refundOptions ?? {};
      const body = validate('refund', refundInputSchema, { amountInCents, ...rest });
      const raw = await transport.call(
        {
          method: 'PUT',
          path: `/pix/${e2eid}/devolucao/${id}`,
          body: {
            valor: decimalFromCents(body.amountInCents),
            ...(body.nature !== undefined && { natureza: body.nature }),
            ...(body.description !== undefined && { descricao: body.description }),
          },
          retrySafe: true,
          signal,
        },
        refundSchema,
      );
      return refundFrom(raw);
    },

    async getRefund(endToEndId, refundId, call) {
      const e2eid = validate('getRefund', endToEndIdSchema, endToEndId);
      const id = validate('getRefund', refundIdSchema, refundId);
      const raw = await transport.call(
        { method: 'GET', path: `/pix/${e2eid}/devolucao/${id}`, retrySafe: true, signal: call?.signal, budget: readBudget },
        refundSchema,
      );
      return refundFrom(raw);
    },

    configureWebhook: configureWebhook as ApiPixClient['configureWebhook'],

    async getWebhook(key, call) {
      const chave = keyFor('getWebhook', key);
      const raw = await transport.call(
        { method: 'GET', path: `/webhook/${encodeURIComponent(chave)}`, retrySafe: true, signal: call?.signal, budget: readBudget },
        webhookSchema,
      );
      return webhookFrom(raw, chave);
    },

    async deleteWebhook(key, call) {
      const chave = keyFor('deleteWebhook', key);
      await transport.call(
        { method: 'DELETE', path: `/webhook/${encodeURIComponent(chave)}`, retrySafe: true, signal: call?.signal },
        zod.unknown(),
      );
    },

    rateLimit: () => transport.rateLimit(),
    pixKey,
    close: () => transport.close(),
  };
}

/** Every option createApiPixClient takes. */
const createApiPixClientOptionNames = optionNames<ApiPixClientOptions>()([
  'baseUrl',
  'tokenUrl',
  'clientId',
  'clientSecret',
  'cert',
  'key',
  'ca',
  'pixKey',
  'scope',
  'retry',
  'renewBeforeMs',
  'requestTimeoutMs',
  'readBudget',
  'book',
  'logger',
  'now',
  'sleep',
]);
