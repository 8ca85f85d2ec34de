-- A durable worker's run leases, in one step (src/redis/order-lease.ts `takeMany`): the ones its finished jobs still
-- hold given back, then one lease taken for each job that started in the same turn of its event loop; runs with
-- take-lease-function.lua prepended (its `takeLease`). Every key shares one slot (a tagged store prefix, or one server).
-- KEYS: for each of the n takes, the lease (take-lease.lua's 1; its counter, tickets and ticket expiries are the lease's
--       key with ':n', ':w', ':x', in its slot, as claim-and-read.lua's), then the leases to give back
-- ARGV: 1 n · 2 lease TTL ms · 3 keep ms · 4 ticket TTL ms or '' (as take-lease.lua) · 5…4+n the takes' owners,
--       then the given leases' fences, in order
-- → one answer per take, in order, as take-lease.lua's: the fence | '' busy (the owners must be unique per take). A lease is given back only while its
--   fence holds it (as give-lease.lua), before any take, so a job may take the lease a finished job of its
--   resource gave back in the same step; two takes of one resource: the first takes it, the second finds it busy.
local n = tonumber(ARGV[1])
for i = n + 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[i + 4] then redis.call('DEL', KEYS[i]) end
end
local taken = {}
for t = 1, n do
  local lease = KEYS[t]
  local owner = ARGV[4 + t]
  -- Nobody waits and the lease is free: taken at once, its fence '0:<owner>' (a worker's owner is unique per job, so
  -- no counter is needed to tell a stale fence from the current one: no counter key is written or kept).
  if redis.call('EXISTS', lease .. ':w') == 0 and redis.call('SET', lease, '0:' .. owner, 'NX', 'PX', ARGV[2]) then
    taken[t] = '0:' .. owner
  else
    taken[t] = takeLease(lease, lease .. ':n', lease .. ':w', lease .. ':x', owner, ARGV[2], ARGV[3], ARGV[4])
  end
end
return taken
