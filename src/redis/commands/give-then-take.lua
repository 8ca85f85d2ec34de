-- A durable worker's run leases: the ones its finished jobs still hold given back, then the next job's taken, in one
-- step (src/redis/order-lease.ts `takeGiving`); runs with take-lease-function.lua prepended (its `takeLease`).
-- Every key shares one slot (a tagged store prefix, or one server).
-- KEYS: 1 lease · 2 counter · 3 tickets · 4 ticket expiries (as take-lease.lua) · 5… the leases to give back
-- ARGV: 1 owner · 2 lease TTL ms · 3 keep ms · 4 ticket TTL ms or '' (as take-lease.lua) · 5… their fences, in order
-- → as take-lease.lua: the fence | '' busy. A lease given back only while its fence holds it (as give-lease.lua).
for i = 5, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[i] then redis.call('DEL', KEYS[i]) end
end
return takeLease(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
