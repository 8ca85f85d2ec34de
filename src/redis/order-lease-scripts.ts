import { luaSources } from './commands/lua-sources.js';
import { defineScript } from './redis-client.js';

// One lease per resource: its value is the fence `<counter>:<owner>`; the counter key outlives the lease
// so a later fence of the resource orders after an earlier one. Waiters hold tickets in arrival order. Every key
// of one resource shares a slot. The scripts' KEYS and ARGV are described in their .lua files.

/** A script that takes the lease: its own text after the one `takeLease` function (src/redis/commands/take-lease-function.lua). */
export function withTakeLease(source: string): string {
  return luaSources['take-lease-function'] + source;
}

/** Takes the lease, or queues (renews) the asker's ticket (src/redis/commands/take-lease.lua). */
export const takeLeaseScript = defineScript(withTakeLease(luaSources['take-lease']));

/** Gives a worker's finished run leases back, then takes the next one (src/redis/commands/give-then-take.lua). */
export const giveThenTakeScript = defineScript(withTakeLease(luaSources['give-then-take']));

/** Renews the lease for its fence (src/redis/commands/extend-lease.lua). */
export const extendLeaseScript = defineScript(luaSources['extend-lease']);

/** Gives the lease back for its fence; tickets untouched (src/redis/commands/give-lease.lua). */
export const giveLeaseScript = defineScript(luaSources['give-lease']);

/** A waiter leaves the ticket queue (src/redis/commands/withdraw-ticket.lua). */
export const withdrawTicketScript = defineScript(luaSources['withdraw-ticket']);

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
