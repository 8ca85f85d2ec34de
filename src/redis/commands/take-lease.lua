-- A resource's order lease, served to its waiters in arrival order (src/redis/order-lease.ts); runs with
-- take-lease-function.lua prepended (its `takeLease`).
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
return takeLease(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
