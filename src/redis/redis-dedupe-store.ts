import { type ClaimResult, type DedupeStore, type QuarantineStore } from '../index.js';
import { registerOrderLeases, type OrderLeases } from '../shared/order-lease.js';
import { withTimeout } from '../shared/with-timeout.js';
import { redisOrderLeases } from './order-lease.js';
import { claimScript, completeScript, extendScript, releaseScript } from './dedupe-scripts.js';
import { scriptRunner, type RedisClientLike } from './redis-client.js';
import { persistenceGate, type RedisPersistenceOptions } from './redis-persistence.js';
import { redisQuarantine } from './redis-quarantine.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export { RedisUnavailableError };

export interface RedisDedupeStoreOptions extends RedisPersistenceOptions {
  /**
   * An ioredis `Redis` or `Cluster` (`new Redis.Cluster(nodes)`) or a node-redis client, already
   * configured; pixhook never closes it. A REST client (`@upstash/redis`) is refused.
   */
  client: RedisClientLike;
  /**
   * Prepended to every dedupe key. Default `pixhook:dedupe:`. Each script touches one key, so on a
   * Cluster the keys may spread over every slot: no hash tag needed.
   */
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
  /** Where verified-but-unreadable deliveries are kept. Default: a `redisQuarantine` on the same client; `false` for none. */
  quarantine?: QuarantineStore | false;
}

/** A Redis store always answers with promises (one round trip each). */
export interface RedisDedupeStore extends DedupeStore {
  claim(key: string, owner: string, ttlMs: number): Promise<ClaimResult>;
  complete(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<void>;
  extend(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Resolves once the server's persistence was checked; rejects when `requirePersistence` refuses it. */
  ready(): Promise<void>;
}

const sites = new WeakMap<DedupeStore, DedupeSite>();

/** A Redis dedupe store's client and prefix, and the order leases it registered (beside its claims). */
interface DedupeSite {
  client: RedisClientLike;
  prefix: string;
  leases: OrderLeases;
}

/** Internal: the client and prefix of a Redis dedupe store, so a Redis payment book on the same client can claim with it in one script. */
export function dedupeSiteOf(store: DedupeStore): DedupeSite | undefined {
  return sites.get(store);
}

/**
 * A dedupe store shared by every instance on one Redis. Each call is one `EVALSHA` round trip, and
 * every claim carries its run's owner token, so release, renewal and completion only ever touch
 * that run's own claim.
 */
export function redisDedupeStore(options: RedisDedupeStoreOptions): RedisDedupeStore {
  refuseUnknownOptions(options, redisDedupeStoreOptionNames, 'redisDedupeStore');
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:dedupe:';
  const claimTimeoutMs = options.claimTimeoutMs ?? 1_500;
  const completeRetryForMs = options.completeRetryForMs ?? 10 * 60 * 1000;
  const persistence = persistenceGate(options.client, options);
  const quarantine =
    options.quarantine === false
      ? undefined
      : (options.quarantine ??
        redisQuarantine({
          client: options.client,
          ...(options.logger && { logger: options.logger }),
          ...(options.requirePersistence !== undefined && { requirePersistence: options.requirePersistence }),
        }));

  const store: RedisDedupeStore = {
    ...(quarantine && { quarantine }),
    ready: () => persistence.ready(),
    async claim(key, owner, ttlMs) {
      // Fail closed at once instead of letting the client queue a claim that lands after we answered 503.
      if (!redis.ready()) throw new RedisUnavailableError('redis is not connected');
      // Checked once per connection: nothing to wait for here after the first call.
      const checking = persistence.before();
      if (checking) await withTimeout(checking, claimTimeoutMs, 'redis persistence check');
      const redisKey = prefix + key;
      let result: unknown;
      try {
        result = await withTimeout(redis.run(claimScript, [redisKey], [owner, ttl(ttlMs)]), claimTimeoutMs, 'redis claim');
      } catch (error) {
        // The claim may still land (clients resend after reconnecting); the release queued behind it undoes it.
        redis.run(releaseScript, [redisKey], [owner]).catch(() => {});
        throw error;
      }
      return asClaimResult(result);
    },
    async complete(key, owner, ttlMs) {
      const mark = () => redis.run(completeScript, [prefix + key], [owner, ttl(ttlMs)]);
      try {
        return Number(await mark()) === 1;
      } catch (error) {
        // The handler ran: keep trying to record it, or a redelivery after the claim expires runs it twice.
        keepTrying(mark, completeRetryForMs);
        throw error;
      }
    },
    async release(key, owner) {
      await redis.run(releaseScript, [prefix + key], [owner]);
    },
    async extend(key, owner, ttlMs) {
      return Number(await redis.run(extendScript, [prefix + key], [owner, ttl(ttlMs)])) === 1;
    },
  };
  // The resource order leases live beside the claims (src/redis/order-lease.ts).
  const leases = redisOrderLeases(options.client, prefix);
  sites.set(store, { client: options.client, prefix, leases });
  return registerOrderLeases(store, leases);
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
  throw new RedisUnavailableError(`unexpected answer from the redis claim script: ${String(text)}`);
}

/** Every option redisDedupeStore takes. */
const redisDedupeStoreOptionNames = optionNames<RedisDedupeStoreOptions>()([
  'client',
  'prefix',
  'claimTimeoutMs',
  'completeRetryForMs',
  'quarantine',
  'requirePersistence',
  'logger',
]);
