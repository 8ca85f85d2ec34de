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
  /**
   * A `complete` that failed (Redis down) is retried in the background for this long, so an event
   * handled during an outage is still marked done when Redis returns. Default 10 minutes.
   */
  completeRetryForMs?: number;
}

export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/**
 * A dedupe store shared by every instance on one Redis. Each call is one `EVALSHA` round trip; a
 * claim carries a random token so release and renewal only ever touch this process's own claim.
 */
/** A Redis store always answers with promises (one round trip each). */
export interface RedisDedupeStore extends DedupeStore {
  claim(key: string, ttlMs: number): Promise<ClaimResult>;
  complete(key: string, ttlMs: number): Promise<void>;
  release(key: string): Promise<void>;
  extend(key: string, ttlMs: number): Promise<void>;
}

export function redisDedupeStore(options: RedisDedupeStoreOptions): RedisDedupeStore {
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:dedupe:';
  const claimTimeoutMs = options.claimTimeoutMs ?? 1_500;
  const completeRetryForMs = options.completeRetryForMs ?? 10 * 60 * 1000;
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
      const mark = () => redis.run(completeScript, [prefix + key], [ttl(ttlMs)]);
      try {
        await mark();
      } catch (error) {
        // The handler ran: keep trying to record it, or a redelivery after the claim expires runs it twice.
        keepTrying(mark, completeRetryForMs);
        throw error;
      }
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

/** Retries `attempt` with backoff (250 ms doubling to 5 s) until it succeeds or `forMs` has passed; never keeps the process alive. */
function keepTrying(attempt: () => Promise<unknown>, forMs: number): void {
  const giveUpAt = Date.now() + forMs;
  const retry = (delayMs: number) => {
    if (Date.now() + delayMs > giveUpAt) return;
    const timer = setTimeout(() => {
      attempt().catch(() => retry(Math.min(delayMs * 2, 5_000)));
    }, delayMs);
    timer.unref();
  };
  retry(250);
}

function ttl(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}

function asClaimResult(value: unknown): ClaimResult {
  const text = value instanceof Uint8Array ? new TextDecoder().decode(value) : value;
  if (text === 'claimed' || text === 'in_flight' || text === 'done') return text;
  throw new Error(`unexpected answer from the redis claim script: ${String(text)}`);
}
