-- The payment book: what a record decides on.
-- KEYS[1] resource · KEYS[2] held-keys · KEYS[3] held · KEYS[4] expecting · ARGV[1] held-keys field
-- → { resource JSON or '', expecting or '', open held of this key or '' }
local heldId = ARGV[1] ~= '' and redis.call('HGET', KEYS[2], ARGV[1])
return { redis.call('GET', KEYS[1]) or '', redis.call('GET', KEYS[4]) or '', heldId and redis.call('HGET', KEYS[3], heldId) or '' }
