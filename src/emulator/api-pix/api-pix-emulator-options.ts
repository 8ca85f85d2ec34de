import { checkDelayMs, checkInteger, checkTimeoutMs, describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { resolveRetry, type RetryOptions, type RetryPolicy } from '../../shared/retry-options.js';
import type { DeliveryFault } from '../delivery-faults.js';
import { optionNames, refuseUnknownOptions } from '../../shared/known-options.js';

export interface ApiPixEmulatorOptions {
  profile: 'api-pix';
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Where the run's certificates are written. Default: a new folder under the OS temp folder. */
  certificatesDir?: string;
  /** More names for the server certificate (DNS names or IP addresses), beside localhost, 127.0.0.1 and ::1. */
  hosts?: string[];
  /** Default: random. */
  clientId?: string;
  /** Default: random. */
  clientSecret?: string;
  /** The merchant's receiving key the emulator knows. Default a fixed EVP key. */
  pixKey?: string;
  /** Access token lifetime. Default 3 600 000 ms. */
  tokenTtlMs?: number;
  /** Delivery attempts and the waits between them. Default `{ attempts: 5, backoff: { delayMs: 1000, factor: 2 } }`. */
  retry?: RetryOptions;
  /** A delivery attempt without an answer within this fails. Default 10 000 ms. */
  deliveryTimeoutMs?: number;
  /** Pix of one key received within this window go in one call. Default 100 ms. */
  groupWindowMs?: number;
  /** At most this many Pix in one call. Default 100. */
  maxGroup?: number;
  /** Failed attempts in a row after which the webhook is disabled, as PSPs do. Default 15. */
  disableWebhookAfterFailures?: number;
  /** A refund asked through the API settles (`DEVOLVIDO`) and is notified after this. Default 50 ms. */
  refundSettleMs?: number;
  /** Delivery faults in force from the start. */
  deliveryFaults?: DeliveryFault[];
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Told of each request answered (status 0: dropped by a fault), e.g. to print it; a throw is ignored. */
  onRequest?: (entry: { method: string; path: string; status: number }) => void;
}

export interface ResolvedApiPixEmulatorOptions {
  port: number;
  host: string;
  certificatesDir: string | undefined;
  hosts: string[];
  clientId: string;
  clientSecret: string;
  pixKey: string;
  tokenTtlMs: number;
  retry: RetryPolicy;
  deliveryTimeoutMs: number;
  groupWindowMs: number;
  maxGroup: number;
  disableWebhookAfterFailures: number;
  refundSettleMs: number;
  deliveryFaults: DeliveryFault[];
  now: () => number;
}

const text = (name: string, value: unknown, fallback: string): string => {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '')
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a non-empty string, got ${describeGiven(value)}`);
  return value;
};

export function resolveApiPixEmulatorOptions(options: ApiPixEmulatorOptions): ResolvedApiPixEmulatorOptions {
  refuseUnknownOptions(options, apiPixEmulatorOptionNames, 'startEmulator');
  const random = () => globalThis.crypto.randomUUID().replace(/-/g, '');
  if (options.hosts !== undefined && (!Array.isArray(options.hosts) || options.hosts.some((h) => typeof h !== 'string' || h === ''))) {
    throw new PixhookConfigError(`pixhook: \`hosts\` must be an array of host names or addresses, got ${describeGiven(options.hosts)}`);
  }
  if (options.now !== undefined && typeof options.now !== 'function')
    throw new PixhookConfigError(`pixhook: \`now\` must be a function, got ${describeGiven(options.now)}`);
  if (options.onRequest !== undefined && typeof options.onRequest !== 'function')
    throw new PixhookConfigError(`pixhook: \`onRequest\` must be a function, got ${describeGiven(options.onRequest)}`);
  return {
    port: checkInteger('port', options.port ?? 0, 0, 65_535),
    host: text('host', options.host, '127.0.0.1'),
    certificatesDir: options.certificatesDir === undefined ? undefined : text('certificatesDir', options.certificatesDir, ''),
    hosts: options.hosts ?? [],
    clientId: text('clientId', options.clientId, `client-${random().slice(0, 12)}`),
    clientSecret: text('clientSecret', options.clientSecret, random()),
    pixKey: text('pixKey', options.pixKey, '7d9f0335-8dcc-4054-9bf9-0dbd61d36906'),
    tokenTtlMs: options.tokenTtlMs === undefined ? 3_600_000 : checkDelayMs('tokenTtlMs', options.tokenTtlMs),
    retry: resolveRetry('retry', options.retry, { attempts: 5, backoff: { delayMs: 1000, factor: 2, maxDelayMs: 60_000 } }),
    deliveryTimeoutMs: options.deliveryTimeoutMs === undefined ? 10_000 : checkTimeoutMs('deliveryTimeoutMs', options.deliveryTimeoutMs),
    groupWindowMs: options.groupWindowMs === undefined ? 100 : checkDelayMs('groupWindowMs', options.groupWindowMs),
    maxGroup: checkInteger('maxGroup', options.maxGroup ?? 100, 1, 1000),
    disableWebhookAfterFailures: checkInteger('disableWebhookAfterFailures', options.disableWebhookAfterFailures ?? 15, 1, 1_000_000),
    refundSettleMs: options.refundSettleMs === undefined ? 50 : checkDelayMs('refundSettleMs', options.refundSettleMs),
    deliveryFaults: options.deliveryFaults ?? [],
    now: options.now ?? Date.now,
  };
}

/** Every option startEmulator takes. */
const apiPixEmulatorOptionNames = optionNames<ApiPixEmulatorOptions>()([
  'profile',
  'port',
  'host',
  'certificatesDir',
  'hosts',
  'clientId',
  'clientSecret',
  'pixKey',
  'tokenTtlMs',
  'retry',
  'deliveryTimeoutMs',
  'groupWindowMs',
  'maxGroup',
  'disableWebhookAfterFailures',
  'refundSettleMs',
  'deliveryFaults',
  'now',
  'onRequest',
]);
