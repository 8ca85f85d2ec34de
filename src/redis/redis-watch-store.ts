import { checkClusterPrefix, defineScript, scriptRunner, type RedisClientLike, type RedisScript } from './redis-client.js';
import { persistenceGate, type RedisPersistenceOptions } from './redis-persistence.js';
import type { WatchEntry, WatchStats, WatchStore } from '../reconcile/watch-store.js';
import { replyText, replyArray } from './redis-replies.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** The Redis clients this store drives: an ioredis `Redis` or `Cluster`, or a node-redis client. */
export type RedisEvalClient = RedisClientLike;

export interface RedisWatchStoreOptions extends RedisPersistenceOptions {
  client: RedisEvalClient;
  /**
   * Key prefix. Default `pixhook:{reconcile}:`: one script touches several of the store's keys, so
   * the `{hash tag}` keeps them all in one Cluster slot; on a Cluster a prefix without one is refused.
   */
  prefix?: string;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A watch store on Redis. */
export interface RedisWatchStore extends WatchStore {
  /** Resolves once the server's persistence was checked; rejects when `requirePersistence` refuses it. */
  ready(): Promise<void>;
}

// Keys: due (ZSET, score = next read; a leased charge's score is its lease expiry, so nobody else sees
// it due meanwhile), entries (HASH id → "createdAt:checks"), created (ZSET by creation, for the lag),
// lease:<id> (the holder, with a TTL), reads (ZSET of recent reads, for the shared query budget).
// The lease script names each leased charge's lease key itself (from ARGV[5]): the prefix's hash tag
// puts it in the slot of the declared keys, which is what a Cluster requires.

const watchScript = defineScript(`
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':0')
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1`);

// A charge leased now keeps its score (its lease's expiry): its holder reads it.
const dueScript = defineScript(`
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[2]) then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) end
return 1`);

const leaseScript = defineScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local score = redis.call('ZSCORE', KEYS[1], id)
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), id)
  redis.call('SET', ARGV[5] .. id, ARGV[4], 'PX', ARGV[3])
  table.insert(out, id)
  table.insert(out, redis.call('HGET', KEYS[2], id) or '0:0')
  table.insert(out, score)
end
return out`);

const rescheduleScript = defineScript(`
if redis.call('GET', KEYS[4]) ~= ARGV[2] then return 0 end
local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return 0 end
local createdAt = string.match(entry, '^([^:]+)')
redis.call('HSET', KEYS[2], ARGV[1], createdAt .. ':' .. ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('DEL', KEYS[4])
return 1`);

const finishScript = defineScript(`
if redis.call('GET', KEYS[4]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[4])
return 1`);

const reserveScript = defineScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[4]) - tonumber(ARGV[3]))
local granted = math.max(0, math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])))
for i = 1, granted do
  local seq = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[4] .. ':' .. seq)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return granted`);

const statsScript = defineScript(`
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { redis.call('ZCARD', KEYS[1]), oldest[2] or '' }`);

/**
 * The watch list in Redis: several reconcilers share one schedule, and a charge's lease (atomic in
 * one script) keeps two of them from reading it at once. Plain ZSET, HASH and SET commands, so any
 * Redis ≥ 5 serves it.
 */
export function redisWatchStore(options: RedisWatchStoreOptions): RedisWatchStore {
  refuseUnknownOptions(options, redisWatchStoreOptionNames, 'redisWatchStore');
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:{reconcile}:';
  checkClusterPrefix(options.client, prefix, 'watch store', 'shop:{reconcile}:');
  const persistence = persistenceGate(options.client, options);
  const now = options.now ?? Date.now;
  const run = (script: RedisScript, keys: string[], args: (string | number)[]) => redis.run(script, keys, args.map(String));
  const due = `${prefix}due`;
  const entries = `${prefix}entries`;
  const created = `${prefix}created`;
  const leaseKey = (id: string) => `${prefix}lease:${id}`;

  return {
    ready: () => persistence.ready(),
    async watch(chargeId, createdAt = now()) {
      await persistence.before();
      await run(watchScript, [due, entries, created], [chargeId, Math.round(createdAt)]);
    },
    async due(chargeId, at) {
      await persistence.before();
      return Number(await run(dueScript, [due, entries, leaseKey(chargeId)], [chargeId, Math.round(at)])) === 1;
    },
    async lease(at, limit, leaseMs, owner) {
      await persistence.before();
      const flat = replyArray(
        await run(leaseScript, [due, entries], [Math.floor(at), limit, Math.ceil(leaseMs), owner, `${prefix}lease:`]),
      );
      const out: WatchEntry[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) {
        const [createdAt, checks] = replyText(flat[i + 1]).split(':');
        out.push({
          chargeId: replyText(flat[i]),
          createdAt: Number(createdAt),
          checks: Number(checks),
          nextCheckAt: Number(replyText(flat[i + 2])),
        });
      }
      return out;
    },
    async reschedule(chargeId, owner, nextCheckAt, checks) {
      const done = await run(
        rescheduleScript,
        [due, entries, created, leaseKey(chargeId)],
        [chargeId, owner, Math.round(nextCheckAt), checks],
      );
      return Number(done) === 1;
    },
    async finish(chargeId, owner) {
      return Number(await run(finishScript, [due, entries, created, leaseKey(chargeId)], [chargeId, owner])) === 1;
    },
    async reserveReads(want, limit, windowMs, at) {
      return Number(await run(reserveScript, [`${prefix}reads`, `${prefix}reads:seq`], [want, limit, Math.ceil(windowMs), Math.floor(at)]));
    },
    async stats(): Promise<WatchStats> {
      const [watched, oldest] = replyArray(await run(statsScript, [created], []));
      const oldestText = replyText(oldest);
      return { watched: Number(replyText(watched)), oldestCreatedAt: oldestText === '' ? undefined : Number(oldestText) };
    },
  };
}

// node-redis may hand back Buffers when configured for them; ioredis gives strings and numbers.

/** Every option redisWatchStore takes. */
const redisWatchStoreOptionNames = optionNames<RedisWatchStoreOptions>()(['client', 'prefix', 'now', 'requirePersistence', 'logger']);
