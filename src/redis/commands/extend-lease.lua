-- A resource's order lease renewed while its handlers run (src/redis/order-lease.ts).
-- KEYS[1] lease · ARGV[1] fence · ARGV[2] TTL ms → 1 renewed, 0 another fence holds it (or none).
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
