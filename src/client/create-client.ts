import { z } from 'zod';
import { abortableSleep } from './abortable-sleep.js';
import { createChargeInputSchema, chargeResponseSchema, type Charge, type CreateChargeInput } from './charge-schemas.js';
import { PixValidationError, validationErrorFrom } from './client-errors.js';
import { checkClientOptions, clientRetryPolicy, type ClientOptions } from './client-options.js';
import { companyResponseSchema, type CompanyInfo } from './company-schemas.js';
import { createTransport } from './http-transport.js';
import { checkPixKey } from './pix-key.js';
import type { RateLimitInfo } from './rate-limit.js';
import { transactionFrom, transactionResponseSchema, type TransactionRecord } from './transaction-schemas.js';
import { sendTransferInputSchema, transferResponseSchema, type SendTransferInput, type TransferResult } from './transfer-schemas.js';
import { waitForStatus, type WaitForStatusOptions } from './wait-for-status.js';
import { createChargeWatching } from './watch-charge.js';
import { expectCharge } from './expect-charge.js';
import { guardLogger } from '../shared/logger.js';
import {
  registerWebhookInputSchema,
  webhookIdSchema,
  webhookListResponseSchema,
  webhookResponseSchema,
  type RegisterWebhookInput,
  type Webhook,
} from './webhook-schemas.js';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface WebhooksApi {
  register(input: RegisterWebhookInput, options?: CallOptions): Promise<Webhook>;
  list(options?: CallOptions): Promise<Webhook[]>;
  get(id: string, options?: CallOptions): Promise<Webhook>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

export interface PixClient {
  /** PIX IN. Never retried on 429/5xx/dropped connection: the charge may exist already. */
  createCharge(input: CreateChargeInput, options?: CallOptions): Promise<Charge>;
  /** PIX OUT, with an idempotency key (generated unless given) reused on every retry. */
  sendTransfer(input: SendTransferInput, options?: CallOptions): Promise<TransferResult>;
  getCompany(options?: CallOptions): Promise<CompanyInfo>;
  getTransaction(id: string, options?: CallOptions): Promise<TransactionRecord>;
  /** Polls `getTransaction` until the status is reached (every 3 s by default). */
  waitForTransactionStatus(id: string, options: WaitForStatusOptions): Promise<TransactionRecord>;
  webhooks: WebhooksApi;
  /** The last `X-RateLimit-*` figures seen, if any. */
  rateLimit(): RateLimitInfo | undefined;
  /** The variant the client follows (`createClient({ variant })`); a reconciler on this client takes it as its own. */
  readonly variant: 'a' | 'b';
}

function validate<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationErrorFrom(operation, parsed.error);
  return parsed.data;
}

const transactionIdSchema = z
  .string()
  .min(1)
  .regex(/^[^/?#]+$/, 'expected a transaction id');

export function createClient(options: ClientOptions): PixClient {
  for (const field of ['apiKey', 'apiSecret', 'baseUrl'] as const) {
    if (typeof options[field] !== 'string' || options[field] === '') {
      throw new PixValidationError('createClient', [{ path: field, message: 'required' }]);
    }
  }
  checkClientOptions(options);
  const variant = options.variant ?? 'a';
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const newKey = options.generateIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const transferBody = options.transferBody ?? 'both';
  const watching = options.watch === undefined ? undefined : createChargeWatching(options, options.watch, sleep);
  const book = options.book;
  const readBudget = options.readBudget;
  const chargeInput = createChargeInputSchema({
    minAmountInCents: options.minChargeAmountInCents ?? (variant === 'a' ? 100 : 1),
    requirePhone: variant === 'a',
  });

  const transport = createTransport({
    apiKey: options.apiKey,
    apiSecret: options.apiSecret,
    baseUrl: options.baseUrl,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now,
    sleep,
    retry: clientRetryPolicy(options),
    renewBeforeMs: options.renewBeforeMs ?? 60_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    logger: guardLogger(options.logger),
  });

  async function getTransaction(id: string, call?: CallOptions): Promise<TransactionRecord> {
    const safeId = validate('getTransaction', transactionIdSchema, id);
    const record = await transport.call(
      {
        method: 'GET',
        path: `/api/v1/transactions/${encodeURIComponent(safeId)}`,
        retrySafe: true,
        signal: call?.signal,
        budget: readBudget,
      },
      transactionResponseSchema,
    );
    return transactionFrom(record);
  }

  return {
    async createCharge(input, call) {
      const body = validate('createCharge', chargeInput, input);
      const createdAt = now();
      const response = await transport.call(
        { method: 'POST', path: '/api/v1/pix/in/qrcode', body, retrySafe: false, signal: call?.signal },
        chargeResponseSchema,
      );
      const { data } = response;
      const charge: Charge = {
        id: data.id,
        status: data.status,
        feesInCents: data.fees,
        pix: { emv: data.pix.emv, qrCode: data.pix.qrCode },
      };
      // The charge exists whatever the book or the watcher does: a failure is shown (and a watch retried), never thrown.
      if (book) charge.expected = await expectCharge(book, { id: data.id, input: body, expiresAt: data['expiresAt'] }, options.logger);
      if (watching) charge.watch = await watching.watch(data.id, createdAt);
      return charge;
    },

    async sendTransfer(input, call) {
      const parsed = validate('sendTransfer', sendTransferInputSchema, input);
      const key = checkPixKey(parsed.pixKey, parsed.pixKeyType);
      if (!key.ok) throw new PixValidationError('sendTransfer', [{ path: 'pixKey', message: key.message }]);
      const idempotencyKey = parsed.idempotencyKey ?? newKey();
      const a = { pixKey: key.key, amount: parsed.amountInCents, currency: 'BRL' };
      const b = { pixKey: key.key, pixKeyType: key.type, amountInCents: parsed.amountInCents };
      const common = {
        ...(parsed.description === undefined ? {} : { description: parsed.description }),
        ...(parsed.postbackUrl === undefined ? {} : { postbackUrl: parsed.postbackUrl }),
      };
      const body = transferBody === 'a' ? { ...a, ...common } : transferBody === 'b' ? { ...b, ...common } : { ...a, ...b, ...common };
      const response = await transport.call(
        {
          method: 'POST',
          path: '/api/v1/pix/out/pixkey',
          body,
          // Both documented names; the same key on every retry makes the retry safe.
          headers: { 'x-idempotency-key': idempotencyKey, 'Idempotency-Key': idempotencyKey },
          retrySafe: true,
          signal: call?.signal,
        },
        transferResponseSchema,
      );
      const d = response.data;
      return {
        id: d.id,
        status: d.status,
        amountInCents: (d.amountInCents ?? d.amount) as number,
        netAmountInCents: d.netAmount,
        feesInCents: d.fees,
        pixKey: d.pixKey,
        idempotencyKey,
      };
    },

    async getCompany(call) {
      const response = await transport.call(
        { method: 'GET', path: '/api/v1/company', retrySafe: true, signal: call?.signal },
        companyResponseSchema,
      );
      return response.data;
    },

    getTransaction,

    waitForTransactionStatus(id, waitOptions) {
      return waitForStatus(id, waitOptions, { read: (signal) => getTransaction(id, { ...(signal && { signal }) }), now, sleep });
    },

    webhooks: {
      async register(input, call) {
        const body = validate('webhooks.register', registerWebhookInputSchema, input);
        return transport.call(
          { method: 'POST', path: '/api/v1/webhook', body, retrySafe: true, signal: call?.signal },
          webhookResponseSchema,
        );
      },
      async list(call) {
        return transport.call({ method: 'GET', path: '/api/v1/webhook', retrySafe: true, signal: call?.signal }, webhookListResponseSchema);
      },
      async get(id, call) {
        const safeId = validate('webhooks.get', webhookIdSchema, id);
        return transport.call(
          { method: 'GET', path: `/api/v1/webhook/${encodeURIComponent(safeId)}`, retrySafe: true, signal: call?.signal },
          webhookResponseSchema,
        );
      },
      async delete(id, call) {
        const safeId = validate('webhooks.delete', webhookIdSchema, id);
        await transport.call(
          { method: 'DELETE', path: `/api/v1/webhook/${encodeURIComponent(safeId)}`, retrySafe: true, signal: call?.signal },
          z.unknown(),
        );
      },
    },

    rateLimit: () => transport.rateLimit(),
    variant,
  };
}
