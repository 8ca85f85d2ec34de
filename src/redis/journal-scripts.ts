import { defineScript } from './redis-client.js';

// The journal's keys, in every script: KEYS[1] index (ZSET, every score 0, so members sort by id, which
// sorts by time), KEYS[2] entries (HASH id → entry JSON without its attempts), KEYS[3] attempts (HASH
// id → JSON array), KEYS[4] updates (ZSET id by the sequence number of its last change), KEYS[5] seq,
// KEYS[6] the index of unverified deliveries (kept apart, with their own bound, so forged
// traffic never pushes a genuine entry out of KEYS[1]).

/**
 * ARGV: id, entry JSON, attempts JSON ('' for none), max, maxUnverified, '1' verified / '0' not. Adds (or
 * replaces) an entry in its own index, then drops that index's oldest past its bound.
 */
export const journalAddScript = defineScript(`
local index, other, bound = KEYS[1], KEYS[6], tonumber(ARGV[4])
if ARGV[6] == '0' then index, other, bound = KEYS[6], KEYS[1], tonumber(ARGV[5]) end
redis.call('ZREM', other, ARGV[1])
redis.call('ZADD', index, 0, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) end
local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
local over = redis.call('ZCARD', index) - bound
if over > 0 then
  local old = redis.call('ZRANGE', index, 0, over - 1)
  redis.call('ZREMRANGEBYRANK', index, 0, over - 1)
  for _, id in ipairs(old) do
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('ZREM', KEYS[4], id)
  end
end
return seq
`);

/** ARGV: id, attempt JSON. Appends to a kept entry's attempts; 0 when the entry was dropped. */
export const journalAttemptScript = defineScript(`
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old then
  redis.call('HSET', KEYS[3], ARGV[1], string.sub(old, 1, -2) .. ',' .. ARGV[2] .. ']')
else
  redis.call('HSET', KEYS[3], ARGV[1], '[' .. ARGV[2] .. ']')
end
local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
return 1
`);

/** ARGV: the id before which to start ('' for the newest), count. Newest first (both indexes merged): id, entry, attempts, … */
export const journalPageScript = defineScript(`
local max = ARGV[1] == '' and '+' or ('(' .. ARGV[1])
local count = tonumber(ARGV[2])
local a = redis.call('ZREVRANGEBYLEX', KEYS[1], max, '-', 'LIMIT', 0, count)
local b = redis.call('ZREVRANGEBYLEX', KEYS[6], max, '-', 'LIMIT', 0, count)
local out = {}
local i, j = 1, 1
while (i <= #a or j <= #b) and #out < count * 3 do
  local id
  if j > #b or (i <= #a and a[i] > b[j]) then id = a[i]; i = i + 1 else id = b[j]; j = j + 1 end
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
end
return out
`);

/** ARGV: id. The entry and its attempts, or an empty list. */
export const journalGetScript = defineScript(`
local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return {} end
return { entry, redis.call('HGET', KEYS[3], ARGV[1]) or '' }
`);

/** ARGV: the last sequence number seen ('' for now), count. The current seq, then id, entry, attempts, … changed since. */
export const journalChangesScript = defineScript(`
local seq = redis.call('GET', KEYS[5]) or '0'
if ARGV[1] == '' then return { seq } end
local changed = redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = { seq }
for i = 1, #changed, 2 do
  local id = changed[i]
  out[#out + 1] = changed[i + 1]
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
end
return out
`);
