-- The dedupe claim and the payment book's read in one script. It decides nothing about money: the decision
-- is the TypeScript step every backend shares, so amounts never pass through Lua numbers or cjson.
-- KEYS: 1 dedupe key · 2 resource · 3 held-keys · 4 held · 5 expecting
-- ARGV: 1 owner · 2 claim TTL ms · 3 held-keys field ("<resource key>\n<dedupe key>")
-- → { 'claimed' | 'done', resource JSON or '', expecting or '', open held of this key or '' } | { 'in_flight' }
local claim = redis.call('GET', KEYS[1])
if claim and claim ~= 'd' then return { 'in_flight' } end
if not claim then redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2]) end
local heldId = redis.call('HGET', KEYS[3], ARGV[3])
local held = heldId and redis.call('HGET', KEYS[4], heldId) or ''
return { claim and 'done' or 'claimed', redis.call('GET', KEYS[2]) or '', redis.call('GET', KEYS[5]) or '', held }
