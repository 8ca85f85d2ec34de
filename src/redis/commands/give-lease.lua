-- A resource's order lease given back (src/redis/order-lease.ts). The one give-back: a script that ends a run
-- in one step (the book, the done mark) copies these lines with its own KEYS/ARGV indices.
-- KEYS[1] lease (`<store prefix>order:<resource>`) · ARGV[1] fence → 1 given back, 0 not this fence's lease
-- (a stale fence touches nothing). The tickets are not touched: the first live waiter takes the lease on its next ask.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
