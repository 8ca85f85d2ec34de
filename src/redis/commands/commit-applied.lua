-- The commit of an applied event, once its handlers succeeded, in one step: the book's write (compare-and-set on
-- the SHA1 of what the judgement read), the event's done mark, and the resource order lease given back. The
-- decision (what the resource becomes) was made in TypeScript (book-state.ts applyStep); this only commits it.
-- KEYS: 1 resource · 2 disputed · 3 dedupe key (absent: no mark) · 4 order lease (absent: not given here)
-- ARGV: 1 resource SHA read ('' absent) · 2 resource JSON ('' nothing to write) · 3 retention ms (0: none) ·
--       4 disputes (2 open, 1 closed only, 0 none) · 5 resource key · 6 owner · 7 done TTL ms · 8 fence
-- → 0 the resource changed since it was read (nothing written: read again) · 1 written and marked done ·
--   2 written, not marked: the claim is another run's (it marks its own)
-- One read of all the commit checks: the resource (compare-and-set), the claim, the lease (writes follow).
local read
if KEYS[4] then
  read = redis.call('MGET', KEYS[1], KEYS[3], KEYS[4])
elseif KEYS[3] then
  read = redis.call('MGET', KEYS[1], KEYS[3])
else
  read = { redis.call('GET', KEYS[1]) }
end
if (read[1] and redis.sha1hex(read[1]) or '') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then
  if tonumber(ARGV[3]) > 0 and ARGV[4] ~= '2' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) else redis.call('SET', KEYS[1], ARGV[2]) end
  -- No SREM for a write without disputes: a resource's disputes never go (dispute-update.ts only adds or updates), so
  -- only a resource that expired and came back without any can be a stale member, which `disputes()` reads as none
  -- and list-disputed.lua drops once it is gone again.
  if ARGV[4] ~= '0' then redis.call('SADD', KEYS[2], ARGV[5]) end
end
local marked = 1
if KEYS[3] then
  -- As the store's complete: a claim that lapsed is marked too; another run's claim is left to it.
  local claim = read[2]
  if claim and claim ~= 'd' and claim ~= 'c:' .. ARGV[6] then marked = 2 else redis.call('SET', KEYS[3], 'd', 'PX', ARGV[7]) end
end
-- The lease's give-back (order-lease-scripts.ts giveLeaseScript): only this fence's lease.
if KEYS[4] and read[3] == ARGV[8] then redis.call('DEL', KEYS[4]) end
return marked
