import { randomUUID } from 'node:crypto';
import type { ClaimResult, DedupeStore } from '../dedupe/dedupe-store.js';
import { withTimeout } from '../with-timeout.js';
import { claimScript, completeScript, extendScript, releaseScript } from './dedupe-scripts.js';
import { scriptRunner, type RedisClientLike } from './redis-client.js';

export interface RedisDedupeStoreOptions {
  /** An ioredis `Redis`/`Cluster` or a node-redis client, already configured; pixhook never closes it. */
  client: RedisClientLike;
  /** Prepended to every dedupe key. Default `pixhook:dedupe:`. */
  prefix?: string;
  /**
   * A claim that has not answered after this is given up (and undone when it lands later), so a
   * connection cut never leaves a claim nobody runs. Keep it under the receiver's `storeTimeoutMs`.
   * Default 1 500 ms.
   */
  claimTimeoutMs?: number;
}

export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/**
 * A dedupe store shared by every instance on one Redis. Each call is one `EVALSHA` round trip; a
 * claim carries a random token so release and renewal only ever touch this process's own claim.
 */
export function redisDedupeStore(options: RedisDedupeStoreOptions): DedupeStore {
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:dedupe:';
  const claimTimeoutMs = options.claimTimeoutMs ?? 1_500;
  // Tokens of the claims this process holds, so release/extend can prove ownership.
  const tokens = new Map<string, string>();

  return {
    async claim(key, ttlMs) {
      // Fail closed at once instead of letting the client queue a claim that lands after we answered 503.
      if (!redis.ready()) throw new RedisUnavailableError('redis is not connected');
      const token = randomUUID();
      const redisKey = prefix + key;
      let result: unknown;
      try {
        result = await withTimeout(redis.run(claimScript, [redisKey], [token, ttl(ttlMs)]), claimTimeoutMs, 'redis claim');
      } catch (error) {
        // The claim may still land (clients resend after reconnecting); the release queued behind it undoes it.
        redis.run(releaseScript, [redisKey], [token]).catch(() => {});
        throw error;
      }
      if (result === 'claimed') tokens.set(key, token);
      return asClaimResult(result);
    },
    async complete(key, ttlMs) {
      tokens.delete(key);
      await redis.run(completeScript, [prefix + key], [ttl(ttlMs)]);
    },
    async release(key) {
      const token = tokens.get(key);
      if (token === undefined) return;
      tokens.delete(key);
      await redis.run(releaseScript, [prefix + key], [token]);
    },
    async extend(key, ttlMs) {
      const token = tokens.get(key);
      if (token === undefined) return;
      await redis.run(extendScript, [prefix + key], [token, ttl(ttlMs)]);
    },
  };
}

function ttl(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}

function asClaimResult(value: unknown): ClaimResult {
  const text = value instanceof Uint8Array ? new TextDecoder().decode(value) : value;
  if (text === 'claimed' || text === 'in_flight' || text === 'done') return text;
  throw new Error(`unexpected answer from the redis claim script: ${String(text)}`);
}
