import { PixhookConfigError, type PayloadVariant } from '../index.js';
import {
  checkDelayMs,
  checkInteger,
  checkOneOf,
  checkSecret,
  checkTimeoutMs,
  checkTtlMs,
  describeGiven,
  maxDelayMs,
  refuseRenamed,
} from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions, type RetryPolicy } from '../shared/retry-options.js';
import type { DeliveryFault } from './delivery-faults.js';
import { checkSignatureOption, type EmulatorSignature } from './delivery-signature.js';
import type { DeliveryRecord, EmulatorDeliveryAttempt, RequestLogEntry } from './emulator-records.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** The endpoints that carry a documented rate limit. */
export type RateLimitedRoute =
  'auth' | 'createCharge' | 'sendTransfer' | 'readCompany' | 'readTransaction' | 'listWebhooks' | 'registerWebhook' | 'deleteWebhook';

export interface EmulatorOptions {
  /** `gateway` (default): the gateway family. `startEmulator({ profile: 'api-pix' })` plays a standard PSP instead. */
  profile?: 'gateway';
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default: random. */
  apiKey?: string;
  /** Default: random. */
  apiSecret?: string;
  /** Signs every delivery. Default: random. */
  webhookSecret?: string;
  /**
   * `a` (default): Variant A rules and payloads (charges from 100 cents, 201 on create, flat errors,
   * `RATE_LIMITED`, the summary's limits). `b`: Variant B (charges from 1 cent, 200, nested errors,
   * `RATE_LIMIT_EXCEEDED`, per-endpoint limits). `short`: Variant B with the short payload.
   */
  variant?: PayloadVariant;
  /** `{ scheme: 'timestamped', header: 'Brand-Signature' }` signs `t=<unix>,v1=<hex HMAC of "t.body">`. Default `{ scheme: 'sha256' }` (`X-Signature`). */
  signature?: EmulatorSignature;
  /**
   * Webhook delivery attempts and the waits between them. Default, as the interface says:
   * `{ attempts: 5, backoff: { delayMs: 1000, factor: 2 } }` (waits 1, 2, 4, 8 s: the last attempt
   * starts 15 s after the first).
   */
  retry?: RetryOptions;
  /** Delivery faults in force from the start (more through `injectDeliveryFault` or `POST /_emulator/delivery-faults`). */
  deliveryFaults?: DeliveryFault[];
  /** A delivery attempt without an answer within this fails. Default 10 000 ms. */
  deliveryTimeoutMs?: number;
  /** Each transfer step (queued → processing → outcome) after this. Default 200 ms. */
  transferStepMs?: number;
  /** Overrides of the per-minute limits (`Infinity` lifts one). */
  rateLimits?: Partial<Record<RateLimitedRoute, number>>;
  /** Epoch milliseconds; drives tokens and rate-limit windows. Default `Date.now`. */
  now?: () => number;
  /** Access token lifetime. Default 1 800 000 ms (30 minutes). */
  tokenTtlMs?: number;
  /** Called when a delivery settles (delivered, or out of attempts). */
  onDelivery?: (delivery: DeliveryRecord) => void;
  /** Called after each delivery attempt (for a live log). */
  onDeliveryAttempt?: (delivery: DeliveryRecord, attempt: EmulatorDeliveryAttempt) => void;
  /** Called after each request is answered (no credentials, no bodies). */
  onRequest?: (entry: RequestLogEntry) => void;
}

export interface ResolvedEmulatorOptions {
  port: number;
  host: string;
  apiKey: string;
  apiSecret: string;
  webhookSecret: string;
  signature: EmulatorSignature;
  variant: PayloadVariant;
  retry: RetryPolicy;
  deliveryFaults: DeliveryFault[];
  deliveryTimeoutMs: number;
  transferStepMs: number;
  rateLimits: Record<RateLimitedRoute, number>;
  now: () => number;
  tokenTtlMs: number;
  minChargeAmountInCents: number;
  onDelivery: (delivery: DeliveryRecord) => void;
  onDeliveryAttempt: (delivery: DeliveryRecord, attempt: EmulatorDeliveryAttempt) => void;
  onRequest: (entry: RequestLogEntry) => void;
}

const variantALimits: Record<RateLimitedRoute, number> = {
  auth: 5,
  createCharge: 60,
  sendTransfer: 30,
  readCompany: 100,
  readTransaction: 100,
  listWebhooks: 100,
  registerWebhook: 100,
  deleteWebhook: 100,
};

// Variant B's table: company and transaction reads have no published limit.
const variantBLimits: Record<RateLimitedRoute, number> = {
  auth: 5,
  createCharge: 100,
  sendTransfer: 50,
  readCompany: Infinity,
  readTransaction: Infinity,
  listWebhooks: 30,
  registerWebhook: 10,
  deleteWebhook: 10,
};

function randomToken(prefix: string): string {
  return `${prefix}${globalThis.crypto.randomUUID().replace(/-/g, '')}`;
}

export function resolveEmulatorOptions(options: EmulatorOptions): ResolvedEmulatorOptions {
  refuseRenamed(options, { backoffMs: '`retry: { backoff: { delayMs } }` (delivery attempts: `retry: { attempts }`, default 5)' });
  refuseUnknownOptions(options, emulatorOptionNames, 'startEmulator');
  const variant = checkOneOf('variant', options.variant ?? 'a', ['a', 'b', 'short']);
  const base = variant === 'a' ? variantALimits : variantBLimits;
  return {
    port: checkInteger('port', options.port, 0, 65_535, 0),
    host: options.host ?? '127.0.0.1',
    apiKey: options.apiKey ?? randomToken('pk_emu_'),
    apiSecret: options.apiSecret ?? randomToken('sk_emu_'),
    webhookSecret: options.webhookSecret === undefined ? randomToken('whsec_emu_') : checkSecret('webhookSecret', options.webhookSecret),
    signature: checkSignatureOption(options.signature),
    variant,
    retry: resolveRetry('retry', options.retry, { attempts: 5, backoff: { delayMs: 1000, factor: 2, maxDelayMs } }),
    deliveryFaults: options.deliveryFaults ?? [],
    deliveryTimeoutMs: checkTimeoutMs('deliveryTimeoutMs', options.deliveryTimeoutMs, 10_000),
    transferStepMs: checkDelayMs('transferStepMs', options.transferStepMs, 200),
    rateLimits: checkRateLimits({ ...base, ...options.rateLimits }),
    now: options.now ?? Date.now,
    tokenTtlMs: checkTtlMs('tokenTtlMs', options.tokenTtlMs, 1_800_000),
    minChargeAmountInCents: variant === 'a' ? 100 : 1,
    onDelivery: options.onDelivery ?? (() => {}),
    onDeliveryAttempt: options.onDeliveryAttempt ?? (() => {}),
    onRequest: options.onRequest ?? (() => {}),
  };
}

/** Requests per minute: a whole number from 0, or `Infinity` for no limit. */
function checkRateLimits(limits: Record<RateLimitedRoute, number>): Record<RateLimitedRoute, number> {
  for (const [route, limit] of Object.entries(limits)) {
    if (limit !== Infinity && !(Number.isSafeInteger(limit) && limit >= 0)) {
      throw new PixhookConfigError(`pixhook: \`rateLimits.${route}\` must be an integer from 0, or Infinity, got ${describeGiven(limit)}`);
    }
  }
  return limits;
}

/** Every option startEmulator takes. */
const emulatorOptionNames = optionNames<EmulatorOptions>()([
  'profile',
  'port',
  'host',
  'apiKey',
  'apiSecret',
  'webhookSecret',
  'variant',
  'signature',
  'retry',
  'deliveryFaults',
  'deliveryTimeoutMs',
  'transferStepMs',
  'rateLimits',
  'now',
  'tokenTtlMs',
  'onDelivery',
  'onDeliveryAttempt',
  'onRequest',
]);
