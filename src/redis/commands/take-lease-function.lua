-- A function, not a script: the one take of a resource's order lease, served to its waiters in arrival order. The
-- scripts that take the lease (take-lease.lua, claim-and-read.lua) run with it prepended (order-lease-scripts.ts
-- `withTakeLease`), so the fair ticket queue is written once.
-- takeLease(lease, counter, tickets (ZSET: owner by arrival number), ticket expiries (ZSET: owner by ms), owner,
--           lease TTL ms, keep ms (counter and tickets), ticket TTL ms or '' to queue nothing, token or nil)
-- → the fence '<counter>:<owner>' ('<token>:<owner>' with a token: the taker's own, unique to this take, so the take
--   creates no counter) | '' busy (with a ticket TTL, the owner's ticket queued or renewed where it stands)
local function takeLease(lease, counter, tickets, expiries, owner, ttl, keep, ticketTtl, token)
  local head = false
  local now = 0
  -- One call counts the lease and the ticket queue (0, the common case: nobody holds it, nobody waits); once the
  -- queue is looked at, `leased` counts the lease alone.
  local leased = redis.call('EXISTS', lease, tickets)
  if leased > 0 and redis.call('EXISTS', tickets) == 1 then
    leased = leased - 1
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    -- A ticket not renewed in time (its waiter died) is skipped: it never holds up the waiters behind it.
    local gone = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
    if #gone > 0 then
      redis.call('ZREM', tickets, unpack(gone))
      redis.call('ZREM', expiries, unpack(gone))
    end
    head = redis.call('ZRANGE', tickets, 0, 0)[1] or false
  end
  if leased == 0 and (not head or head == owner) then
    if head then
      redis.call('ZREM', tickets, owner)
      redis.call('ZREM', expiries, owner)
    end
    local n = token
    if not n then
      n = redis.call('INCR', counter)
      redis.call('PEXPIRE', counter, keep)
    end
    local fence = n .. ':' .. owner
    redis.call('SET', lease, fence, 'PX', ttl)
    return fence
  end
  if ticketTtl ~= '' then
    if now == 0 then
      local t = redis.call('TIME')
      now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    end
    if not redis.call('ZSCORE', tickets, owner) then redis.call('ZADD', tickets, redis.call('INCR', counter), owner) end
    redis.call('ZADD', expiries, now + tonumber(ticketTtl), owner)
    redis.call('PEXPIRE', counter, keep)
    redis.call('PEXPIRE', tickets, keep)
    redis.call('PEXPIRE', expiries, keep)
  end
  return ''
end
