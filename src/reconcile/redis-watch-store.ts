import type { WatchEntry, WatchStats, WatchStore } from './watch-store.js';

/** The ioredis calls this store makes (a `Redis` instance fits). */
export interface RedisEvalClient {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface RedisWatchStoreOptions {
  client: RedisEvalClient;
  /** Key prefix. Default `pixhook:reconcile:`. */
  prefix?: string;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

// Keys: due (ZSET, score = next read; a leased charge's score is its lease expiry, so nobody else sees
// it due meanwhile), entries (HASH id → "createdAt:checks"), created (ZSET by creation, for the lag),
// lease:<id> (the holder, with a TTL), reads (ZSET of recent reads, for the shared query budget).

const watchScript = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':0')
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1`;

const leaseScript = `
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
return out`;

const rescheduleScript = `
if redis.call('GET', KEYS[4]) ~= ARGV[2] then return 0 end
local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return 0 end
local createdAt = string.match(entry, '^([^:]+)')
redis.call('HSET', KEYS[2], ARGV[1], createdAt .. ':' .. ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('DEL', KEYS[4])
return 1`;

const finishScript = `
if redis.call('GET', KEYS[4]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[4])
return 1`;

const reserveScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[4]) - tonumber(ARGV[3]))
local granted = math.max(0, math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - redis.call('ZCARD', KEYS[1])))
for i = 1, granted do
  local seq = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[4] .. ':' .. seq)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return granted`;

const statsScript = `
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { redis.call('ZCARD', KEYS[1]), oldest[2] or '' }`;

/**
 * The watch list in Redis: several reconcilers share one schedule, and a charge's lease (atomic in
 * one script) keeps two of them from reading it at once. Plain ZSET, HASH and SET commands, so any
 * Redis ≥ 5 serves it.
 */
export function redisWatchStore(options: RedisWatchStoreOptions): WatchStore {
  const { client } = options;
  const prefix = options.prefix ?? 'pixhook:reconcile:';
  const now = options.now ?? Date.now;
  const due = `${prefix}due`;
  const entries = `${prefix}entries`;
  const created = `${prefix}created`;
  const leaseKey = (id: string) => `${prefix}lease:${id}`;

  return {
    async watch(chargeId, createdAt = now()) {
      await client.eval(watchScript, 3, due, entries, created, chargeId, Math.round(createdAt));
    },
    async lease(at, limit, leaseMs, owner) {
      const flat = (await client.eval(leaseScript, 2, due, entries, Math.floor(at), limit, Math.ceil(leaseMs), owner, `${prefix}lease:`)) as string[];
      const out: WatchEntry[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) {
        const [createdAt, checks] = String(flat[i + 1]).split(':');
        out.push({ chargeId: String(flat[i]), createdAt: Number(createdAt), checks: Number(checks), nextCheckAt: Number(flat[i + 2]) });
      }
      return out;
    },
    async reschedule(chargeId, owner, nextCheckAt, checks) {
      const done = await client.eval(rescheduleScript, 4, due, entries, created, leaseKey(chargeId), chargeId, owner, Math.round(nextCheckAt), checks);
      return done === 1;
    },
    async finish(chargeId, owner) {
      return (await client.eval(finishScript, 4, due, entries, created, leaseKey(chargeId), chargeId, owner)) === 1;
    },
    async reserveReads(want, limit, windowMs, at) {
      return Number(await client.eval(reserveScript, 2, `${prefix}reads`, `${prefix}reads:seq`, want, limit, Math.ceil(windowMs), Math.floor(at)));
    },
    async stats(): Promise<WatchStats> {
      const [watched, oldest] = (await client.eval(statsScript, 1, created)) as [number, string];
      return { watched: Number(watched), oldestCreatedAt: oldest === '' ? undefined : Number(oldest) };
    },
  };
}
