import type { DedupeStore } from './dedupe/dedupe-store.js';
import { memoryDedupeStore } from './dedupe/memory-dedupe-store.js';
import { eventKey } from './events/event-key.js';
import type { PixEvent } from './events/event-types.js';
import type { AckMode } from './handler-registry.js';
import { silentLogger, type Logger } from './logger.js';
import { PixhookConfigError } from './pixhook-error.js';
import { verifySignatureNow, type SignatureResult, type VerifySignatureInput } from './signature/verify-signature.js';
import { verifyTimestampedSignature } from './signature/verify-timestamped-signature.js';

/**
 * How deliveries are signed. Default: the interface's `X-Signature: sha256=<hex>`. A sibling brand
 * signs `t=<unix seconds>,v1=<hex of HMAC("t.body")>` in its own header: `{ scheme: 'timestamped',
 * header: 'vexy-signature' }`.
 */
export type SignatureOptions =
  | { scheme: 'sha256'; header?: string }
  | { scheme: 'timestamped'; header: string; toleranceSeconds?: number };

/** A verified, claimed event handed to a durable queue. Plain JSON, so any queue can carry it. */
export interface QueuedEvent {
  /** The dedupe key; durable queues use it as the job id so they refuse duplicates too. */
  key: string;
  name: string;
  payload: unknown;
  receivedAt: string;
}

/** Where `durable` mode writes events before answering 200 (see `pixhook/redis`). */
export interface EventQueue {
  enqueue(event: QueuedEvent): Promise<void>;
}

export interface BackgroundOptions {
  /** Handlers running at once. Default 10. */
  concurrency?: number;
  /** Events waiting or running before new ones get 503 `queue_full`. Default 10 000. */
  maxQueued?: number;
  /** Runs per event, first included, before `onError`. Default 3. */
  attempts?: number;
  /** Wait before the first retry; doubles each time (see `backoffFactor`). Default 500 ms. */
  backoffMs?: number;
  backoffFactor?: number;
}

export interface ReceiverOptions {
  /** The webhook secret, or several while rotating (any one may match). */
  secret: string | readonly string[];
  /** `inline` (default): handle, then answer. `background`: answer, then handle in memory. `durable`: queue, then answer. */
  mode?: AckMode;
  /** Dedupe store. Default: a bounded in-memory LRU (this process only). */
  store?: DedupeStore;
  /** Dedupe key of an event. Default `eventKey` (`name:resourceId:status:amount`, plus refund or dispute identity). */
  dedupeKey?: (event: PixEvent) => string;
  /** How long a processed key answers `duplicate`. Default 24 h (covers the sender's 5 attempts). */
  dedupeTtlMs?: number;
  /** How long a claim holds without renewal; a crashed instance's claim frees after this. Default 60 s. */
  claimTtlMs?: number;
  /** Inline mode: answer 503 `handler_timeout` after this; the handler keeps running. Default 8 000 ms. */
  deadlineMs?: number;
  /** Larger bodies get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Bound on every call to a remote store or queue. Default 2 000 ms. */
  storeTimeoutMs?: number;
  /** `Retry-After` on 503 answers, in seconds. Default 5. */
  retryAfterSeconds?: number;
  background?: BackgroundOptions;
  /** Required for `durable` mode. */
  queue?: EventQueue;
  /** Keeps work after the answer alive on serverless platforms (Next.js `after`, `ctx.waitUntil`). */
  waitUntil?: (promise: Promise<unknown>) => void;
  logger?: Logger;
  /** Signature scheme and header. Default `{ scheme: 'sha256', header: 'x-signature' }`. */
  signature?: SignatureOptions;
}

export interface ResolvedOptions {
  secrets: readonly string[];
  mode: AckMode;
  store: DedupeStore;
  dedupeKey: (event: PixEvent) => string;
  dedupeTtlMs: number;
  claimTtlMs: number;
  deadlineMs: number;
  maxBodyBytes: number;
  storeTimeoutMs: number;
  retryAfterSeconds: number;
  background: Required<BackgroundOptions>;
  queue: EventQueue | undefined;
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  logger: Logger;
  signatureHeader: string;
  verify: (input: VerifySignatureInput) => SignatureResult | Promise<SignatureResult>;
}

/** The default dedupe key (see `eventKey`); kept under this name for existing imports. */
export const defaultDedupeKey: (event: PixEvent) => string = eventKey;

export function resolveOptions(options: ReceiverOptions): ResolvedOptions {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...(options.secret ?? [])];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.trim() === '')) {
    throw new PixhookConfigError('pixhook: `secret` must be a non-empty string (or a list of them).');
  }
  const mode = options.mode ?? 'inline';
  if (!['inline', 'background', 'durable'].includes(mode)) {
    throw new PixhookConfigError(`pixhook: unknown mode "${String(mode)}"; use inline, background or durable.`);
  }
  if (mode === 'durable' && !options.queue) {
    throw new PixhookConfigError('pixhook: durable mode needs a `queue` (see pixhook/redis: createDurableQueue).');
  }
  const resolved: ResolvedOptions = {
    secrets,
    mode,
    store: options.store ?? memoryDedupeStore(),
    dedupeKey: options.dedupeKey ?? defaultDedupeKey,
    dedupeTtlMs: positive('dedupeTtlMs', options.dedupeTtlMs, 24 * 60 * 60 * 1000),
    claimTtlMs: positive('claimTtlMs', options.claimTtlMs, 60_000),
    deadlineMs: positive('deadlineMs', options.deadlineMs, 8_000),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 1024 * 1024),
    storeTimeoutMs: positive('storeTimeoutMs', options.storeTimeoutMs, 2_000),
    retryAfterSeconds: positive('retryAfterSeconds', options.retryAfterSeconds, 5),
    background: {
      concurrency: positive('background.concurrency', options.background?.concurrency, 10),
      maxQueued: positive('background.maxQueued', options.background?.maxQueued, 10_000),
      attempts: positive('background.attempts', options.background?.attempts, 3),
      backoffMs: positive('background.backoffMs', options.background?.backoffMs, 500, true),
      backoffFactor: positive('background.backoffFactor', options.background?.backoffFactor, 2),
    },
    queue: options.queue,
    waitUntil: options.waitUntil,
    logger: options.logger ?? silentLogger,
    ...resolveSignature(options.signature),
  };
  return resolved;
}

function positive(name: string, value: number | undefined, fallback: number, zeroOk = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!zeroOk && value === 0)) {
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a positive number, got ${String(value)}.`);
  }
  return value;
}

function resolveSignature(signature: SignatureOptions | undefined): Pick<ResolvedOptions, 'signatureHeader' | 'verify'> {
  if (signature === undefined || signature.scheme === 'sha256') {
    return { signatureHeader: (signature?.header ?? 'x-signature').toLowerCase(), verify: verifySignatureNow };
  }
  if (signature.scheme !== 'timestamped' || typeof signature.header !== 'string' || signature.header === '') {
    throw new PixhookConfigError('pixhook: `signature` must be { scheme: "sha256" } or { scheme: "timestamped", header }.');
  }
  const toleranceSeconds = positive('signature.toleranceSeconds', signature.toleranceSeconds, 300);
  return {
    signatureHeader: signature.header.toLowerCase(),
    verify: (input) => verifyTimestampedSignature({ ...input, toleranceSeconds }),
  };
}
