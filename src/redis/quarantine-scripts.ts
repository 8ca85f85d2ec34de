import { defineScript } from './redis-client.js';

// KEYS: 1 index (zset id → last delivery ms, server clock), 2 meta (hash id → JSON), 3 bodies (hash id →
// base64 bytes), 4 deliveries (hash id → count). One hash tag in the prefix keeps all four in one Cluster slot.
// Every script first drops the entries whose last delivery is older than the TTL.
const prelude = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function drop(id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
end
local function prune(now, ttl)
  local cutoff = '(' .. tostring(now - ttl)
  local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)
  for _, id in ipairs(old) do drop(id) end
  if #old > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff) end
end
`;

/** ARGV: id, ttlMs, maxEntries, meta JSON, base64 body. A body already kept only counts one more delivery. */
export const putScript = defineScript(`${prelude}
local now = now_ms()
local ttl = tonumber(ARGV[2])
prune(now, ttl)
local id = ARGV[1]
if redis.call('ZSCORE', KEYS[1], id) then
  redis.call('HINCRBY', KEYS[4], id, 1)
else
  redis.call('HSET', KEYS[2], id, ARGV[4])
  redis.call('HSET', KEYS[3], id, ARGV[5])
  redis.call('HSET', KEYS[4], id, 1)
end
redis.call('ZADD', KEYS[1], now, id)
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over > 0 then
  local popped = redis.call('ZPOPMIN', KEYS[1], over)
  for i = 1, #popped, 2 do drop(popped[i]) end
end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
return id
`);

/** ARGV: ttlMs, start, end. Newest first: id, last delivery ms, meta JSON, deliveries; repeated. */
export const listScript = defineScript(`${prelude}
prune(now_ms(), tonumber(ARGV[1]))
local rows = redis.call('ZREVRANGE', KEYS[1], ARGV[2], ARGV[3], 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  local id = rows[i]
  table.insert(out, id)
  table.insert(out, rows[i + 1])
  table.insert(out, redis.call('HGET', KEYS[2], id) or '{}')
  table.insert(out, redis.call('HGET', KEYS[4], id) or '1')
end
return out
`);

/** ARGV: ttlMs, id. Returns last delivery ms, meta JSON, base64 body, deliveries; or nil. */
export const showScript = defineScript(`${prelude}
prune(now_ms(), tonumber(ARGV[1]))
local id = ARGV[2]
local score = redis.call('ZSCORE', KEYS[1], id)
if not score then return false end
return { score, redis.call('HGET', KEYS[2], id) or '{}', redis.call('HGET', KEYS[3], id) or '', redis.call('HGET', KEYS[4], id) or '1' }
`);

/** ARGV: id. Returns 1 when it was kept. */
export const removeScript = defineScript(`
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return removed
`);
