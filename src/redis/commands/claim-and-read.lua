-- The resource's order lease, the dedupe claim and the payment book's read in one script (src/redis/joined-book-claim.ts;
-- runs with take-lease-function.lua prepended, its `takeLease`). It decides nothing about money: the decision is the
-- TypeScript step every backend shares, so amounts never pass through Lua numbers or cjson.
-- KEYS: 1 dedupe key · 2 resource · 3 held-keys · 4 held · 5 expecting · 6 order lease (order-lease.ts, in the dedupe
--       key's slot; its counter, tickets and ticket expiries are that key with ':n', ':w', ':x', the same slot)
-- ARGV: 1 owner · 2 claim TTL ms · 3 held-keys field ("<resource key>\n<dedupe key>") · 4 lease TTL ms · 5 keep ms
--       · 6 ticket TTL ms, or '' to queue nothing · 7 this take's token (the fence '<token>:<owner>': no counter)
-- → { 'claimed', fence, resource JSON or '', expecting or '', open held of this key or '' }: lease taken, key claimed
--   | { 'done', '', resource, expecting, open held } (the book read only when this key has an open held event)
--   | { 'in_flight' }: another owner's claim | { 'busy' }: the lease is another's, or a waiter is ahead (with ARGV[6],
--   this owner's ticket queued or renewed). Done, in flight and busy take nothing and claim nothing.
local claim = redis.call('GET', KEYS[1])
if claim and claim ~= 'd' and claim ~= 'c:' .. ARGV[1] then return { 'in_flight' } end
local heldId = redis.call('HGET', KEYS[3], ARGV[3])
local held = heldId and redis.call('HGET', KEYS[4], heldId) or ''
if claim == 'd' then
  if held == '' then return { 'done' } end
  local read = redis.call('MGET', KEYS[2], KEYS[5])
  return { 'done', '', read[1] or '', read[2] or '', held }
end
local lease = KEYS[6]
local fence = takeLease(lease, lease .. ':n', lease .. ':w', lease .. ':x', ARGV[1], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
if fence == '' then return { 'busy' } end
redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
local read = redis.call('MGET', KEYS[2], KEYS[5])
return { 'claimed', fence, read[1] or '', read[2] or '', held }
