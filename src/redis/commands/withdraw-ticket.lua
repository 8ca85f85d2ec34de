-- A waiter leaves a resource's ticket queue: it gave up after orderWaitMs, or no longer needs the lease.
-- KEYS[1] tickets · KEYS[2] ticket expiries · ARGV[1] owner → 1.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
