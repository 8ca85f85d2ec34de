import { defineScript } from './redis-client.js';

// The journal's keys, in every script: KEYS[1] index (ZSET, every score 0, so members sort by id, which
// sorts by time), KEYS[2] entries (HASH id → entry JSON without its attempts), KEYS[3] attempts (HASH
// id → JSON array), KEYS[4] updates (ZSET id by the sequence number of its last change), KEYS[5] seq.

/** ARGV: id, entry JSON, attempts JSON ('' for none), max. Adds (or replaces) an entry, then drops the oldest past max. */
export const journalAddScript = defineScript(`
redis.call('ZADD', KEYS[1], 0, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) end
local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  local old = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
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

/** ARGV: the id before which to start ('' for the newest), count. Newest first: id, entry, attempts, … */
export const journalPageScript = defineScript(`
local max = ARGV[1] == '' and '+' or ('(' .. ARGV[1])
local ids = redis.call('ZREVRANGEBYLEX', KEYS[1], max, '-', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
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
