import { defineScript } from './redis-client.js';

// One lease per resource: its value is the fence `<counter>:<owner>`; the counter key outlives the lease
// so a later fence of the resource orders after an earlier one. Every key of one resource shares a slot.

/** KEYS[1] lease · KEYS[2] counter · ARGV[1] owner · ARGV[2] lease TTL ms · ARGV[3] counter TTL ms → the fence, or '' while held. */
export const takeLeaseScript = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return '' end
local n = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local fence = n .. ':' .. ARGV[1]
redis.call('SET', KEYS[1], fence, 'PX', ARGV[2])
return fence
`);

/** KEYS[1] lease · ARGV[1] fence · ARGV[2] TTL ms → 1 renewed, 0 another fence holds it (or none). */
export const extendLeaseScript = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/** KEYS[1] lease · ARGV[1] fence → 1 given back, 0 not this fence's lease (a stale fence touches nothing). */
export const giveLeaseScript = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** KEYS[1] queued (sorted by fence counter) · KEYS[2] queued-at · ARGV[1] counter · ARGV[2] key · ARGV[3] now ms · ARGV[4] keep ms. */
export const queueInOrderScript = defineScript(`
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
`);

/**
 * KEYS[1] queued · KEYS[2] queued-at · ARGV[1] key · ARGV[2] now ms · ARGV[3] stale ms → the first key queued before
 * it, or '' (its turn; a key never queued in order runs too); earlier keys older than stale ms are dropped.
 */
export const aheadScript = defineScript(`
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not mine then return '' end
local earlier = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. mine)
for _, key in ipairs(earlier) do
  local at = tonumber(redis.call('HGET', KEYS[2], key) or '0')
  if tonumber(ARGV[2]) - at < tonumber(ARGV[3]) then return key end
  redis.call('ZREM', KEYS[1], key)
  redis.call('HDEL', KEYS[2], key)
end
return ''
`);

/** KEYS[1] queued · KEYS[2] queued-at · ARGV[1] key. */
export const settleTurnScript = defineScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`);
