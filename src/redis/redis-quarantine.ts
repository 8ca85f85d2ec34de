import { createHash } from 'node:crypto';
import type { InvalidDelivery, QuarantineStore } from '../index.js';
import { checkTtlMs, optionalNumber } from '../shared/option-checks.js';
import { listScript, putScript, removeScript, showScript } from './quarantine-scripts.js';
import { checkClusterPrefix, scriptRunner, type RedisClientLike } from './redis-client.js';
import { persistenceGate, type RedisPersistenceOptions } from './redis-persistence.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { replyText, replyArray } from './redis-replies.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface RedisQuarantineOptions extends RedisPersistenceOptions {
  /** An ioredis `Redis`/`Cluster` or a node-redis client, already configured; pixhook never closes it. */
  client: RedisClientLike;
  /**
   * Prepended to the store's four keys. Default `pixhook:{quarantine}:`: one script touches all four,
   * so the `{hash tag}` keeps them in one Cluster slot; on a Cluster a prefix without one is refused.
   */
  prefix?: string;
  /** How long a body is kept after its last delivery. Default 7 days. */
  ttlMs?: number;
  /** Bodies kept at most; the one delivered longest ago goes first. Default 10 000. */
  maxEntries?: number;
}

/** One kept body, without its bytes: what `list` returns. */
export interface QuarantineSummary {
  /** sha256 hex of the bytes. */
  id: string;
  reason: InvalidDelivery['reason'];
  message: string;
  /** The first delivery's `receivedAt`. */
  receivedAt: string;
  /** When the last delivery of these bytes was kept (Redis clock), ISO. */
  lastReceivedAt: string;
  /** How many deliveries brought these bytes (the sender retries up to 5 times). */
  deliveries: number;
  /** Body size in bytes. */
  size: number;
}

/** One kept body with everything the first delivery carried: what `show` returns. */
export interface QuarantinedDelivery extends InvalidDelivery {
  id: string;
  lastReceivedAt: string;
  deliveries: number;
}

export interface QuarantineRange {
  /** Default 0 (the newest). */
  start?: number;
  /** Inclusive. Default 99. */
  end?: number;
}

export interface RedisQuarantine extends QuarantineStore {
  /** Newest first (by last delivery). */
  list(range?: QuarantineRange): Promise<QuarantineSummary[]>;
  show(id: string): Promise<QuarantinedDelivery | undefined>;
  /** True when the body was kept and is now gone (e.g. after a successful replay). */
  remove(id: string): Promise<boolean>;
  /** Resolves once the server's persistence was checked; rejects when `requirePersistence` refuses it. */
  ready(): Promise<void>;
}

interface StoredMeta {
  reason: InvalidDelivery['reason'];
  message: string;
  headers: Record<string, string>;
  receivedAt: string;
  size: number;
  /** The JSON is not stored twice: it is parsed again from the bytes on `show`. */
  parsed: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Keeps verified bodies pixhook could not read, so a merchant who fixes the cause can replay them:
 * one copy per body (sha256 of the bytes), the bytes in base64 (lossless), bounded and with a TTL.
 */
export function redisQuarantine(options: RedisQuarantineOptions): RedisQuarantine {
  refuseUnknownOptions(options, redisQuarantineOptionNames, 'redisQuarantine');
  // The options first: a refused one must not leave a persistence check running on the client.
  const ttlMs = checkTtlMs('ttlMs', options.ttlMs, 7 * 24 * 60 * 60 * 1000);
  const maxEntries = optionalNumber('maxEntries', options.maxEntries, 10_000, { min: 1, max: Number.MAX_SAFE_INTEGER });
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:{quarantine}:';
  checkClusterPrefix(options.client, prefix, 'quarantine', 'shop:{quarantine}:');
  const persistence = persistenceGate(options.client, options);
  const keys = [`${prefix}index`, `${prefix}meta`, `${prefix}bodies`, `${prefix}deliveries`];
  const ttl = String(ttlMs);

  return {
    ready: () => persistence.ready(),
    async put(delivery) {
      if (!redis.ready()) throw new RedisUnavailableError('redis is not connected');
      await persistence.before();
      const bytes = Buffer.from(delivery.bytes.buffer, delivery.bytes.byteOffset, delivery.bytes.byteLength);
      const id = createHash('sha256').update(bytes).digest('hex');
      const meta: StoredMeta = {
        reason: delivery.reason,
        message: delivery.message,
        headers: delivery.headers,
        receivedAt: delivery.receivedAt,
        size: bytes.byteLength,
        parsed: delivery.json !== undefined,
      };
      await redis.run(putScript, keys, [id, ttl, String(maxEntries), JSON.stringify(meta), bytes.toString('base64')]);
      return id;
    },
    async list(range = {}) {
      const start = Math.max(0, Math.trunc(range.start ?? 0));
      const end = Math.trunc(range.end ?? start + 99);
      if (end < start) return [];
      const rows = replyArray(await redis.run(listScript, keys, [ttl, String(start), String(end)]));
      const out: QuarantineSummary[] = [];
      for (let i = 0; i + 3 < rows.length; i += 4) {
        const meta = parseMeta(rows[i + 2]);
        out.push({
          id: replyText(rows[i]),
          reason: meta.reason,
          message: meta.message,
          receivedAt: meta.receivedAt,
          lastReceivedAt: new Date(Number(replyText(rows[i + 1]))).toISOString(),
          deliveries: Number(replyText(rows[i + 3])),
          size: meta.size,
        });
      }
      return out;
    },
    async show(id) {
      const row = await redis.run(showScript, keys, [ttl, id]);
      if (row === null || row === undefined || row === false) return undefined;
      const [score, metaText, body, deliveries] = replyArray(row);
      const meta = parseMeta(metaText);
      const bytes = new Uint8Array(Buffer.from(replyText(body), 'base64'));
      const delivery: QuarantinedDelivery = {
        id,
        reason: meta.reason,
        message: meta.message,
        bytes,
        headers: meta.headers,
        receivedAt: meta.receivedAt,
        lastReceivedAt: new Date(Number(replyText(score))).toISOString(),
        deliveries: Number(replyText(deliveries)),
      };
      if (meta.parsed) {
        const json = parseJsonOrUndefined(bytes);
        if (json !== undefined) delivery.json = json;
      }
      return delivery;
    },
    async remove(id) {
      return Number(await redis.run(removeScript, keys, [id])) === 1;
    },
  };
}

function parseJsonOrUndefined(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}

function parseMeta(value: unknown): StoredMeta {
  const meta = JSON.parse(replyText(value)) as Partial<StoredMeta>;
  return {
    reason: meta.reason === 'json_invalid' ? 'json_invalid' : 'payload_invalid',
    message: typeof meta.message === 'string' ? meta.message : '',
    headers: meta.headers ?? {},
    receivedAt: typeof meta.receivedAt === 'string' ? meta.receivedAt : '',
    size: typeof meta.size === 'number' ? meta.size : 0,
    parsed: meta.parsed === true,
  };
}

// node-redis may hand back Buffers when configured for them; ioredis gives strings.

/** Every option redisQuarantine takes. */
const redisQuarantineOptionNames = optionNames<RedisQuarantineOptions>()([
  'client',
  'prefix',
  'ttlMs',
  'maxEntries',
  'requirePersistence',
  'logger',
]);
