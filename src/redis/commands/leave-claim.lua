-- A joined claim given up (src/redis/joined-book-claim.ts: the book's step failed, or the script's answer did not come
-- in time and it may still land): the claim, the order lease and the ticket this owner may hold, each only if its own.
-- KEYS: 1 dedupe key · 2 order lease · 3 its tickets · 4 its ticket expiries · ARGV[1] owner → 1.
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then redis.call('DEL', KEYS[1]) end
local fence = redis.call('GET', KEYS[2])
if fence and string.sub(fence, -(#ARGV[1] + 1)) == ':' .. ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
