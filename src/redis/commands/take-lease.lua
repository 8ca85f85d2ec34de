-- A resource's order lease, served to its waiters in arrival order (src/redis/order-lease.ts).
-- KEYS: 1 lease · 2 counter · 3 tickets (ZSET: owner by arrival number) · 4 ticket expiries (ZSET: owner by ms)
--       · 5, optional: the delivery's dedupe key, read in the same step (it shares the lease's slot)
-- ARGV: 1 owner · 2 lease TTL ms · 3 keep ms (counter and tickets) · 4 ticket TTL ms, or '' to queue nothing
-- → the fence '<counter>:<owner>' | '' busy (with ARGV[4], the owner's ticket queued or renewed where it stands)
--   | 'done' / 'in_flight': the dedupe key is done / claimed by another owner (nothing taken, nothing queued)
if KEYS[5] then
  local claim = redis.call('GET', KEYS[5])
  if claim == 'd' then return 'done' end
  if claim and claim ~= 'c:' .. ARGV[1] then return 'in_flight' end
end
local head = false
local now = 0
if redis.call('EXISTS', KEYS[3]) == 1 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  -- A ticket not renewed in time (its waiter died) is skipped: it never holds up the waiters behind it.
  local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  if #gone > 0 then
    redis.call('ZREM', KEYS[3], unpack(gone))
    redis.call('ZREM', KEYS[4], unpack(gone))
  end
  head = redis.call('ZRANGE', KEYS[3], 0, 0)[1] or false
end
if redis.call('EXISTS', KEYS[1]) == 0 and (not head or head == ARGV[1]) then
  if head then
    redis.call('ZREM', KEYS[3], ARGV[1])
    redis.call('ZREM', KEYS[4], ARGV[1])
  end
  local n = redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  local fence = n .. ':' .. ARGV[1]
  redis.call('SET', KEYS[1], fence, 'PX', ARGV[2])
  return fence
end
if ARGV[4] ~= '' then
  if now == 0 then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[2]), ARGV[1]) end
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[4]), ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end
return ''
