-- The payment book's compare-and-set write (see book-scripts.ts for KEYS and ARGV).
-- → 1 written, 0 something changed since it was read (read again and retry).
local function sha(v) if v then return redis.sha1hex(v) end return '' end
if ARGV[1] ~= '*' and sha(redis.call('GET', KEYS[1])) ~= ARGV[1] then return 0 end
if ARGV[6] ~= '' and sha(redis.call('HGET', KEYS[2], ARGV[6])) ~= ARGV[7] then return 0 end
if ARGV[1] ~= '*' then
  if tonumber(ARGV[3]) > 0 and ARGV[4] ~= '2' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) else redis.call('SET', KEYS[1], ARGV[2]) end
  if ARGV[4] ~= '0' then redis.call('SADD', KEYS[6], ARGV[5]) else redis.call('SREM', KEYS[6], ARGV[5]) end
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[6], ARGV[8])
  if ARGV[9] == 'open' then
    redis.call('HSET', KEYS[3], ARGV[11], ARGV[6])
    redis.call('ZADD', KEYS[4], ARGV[10], ARGV[6])
  elseif ARGV[9] == 'close' then
    redis.call('HDEL', KEYS[3], ARGV[11])
    redis.call('ZREM', KEYS[4], ARGV[6])
    redis.call('ZADD', KEYS[5], ARGV[10], ARGV[6])
    local over = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[12])
    if over > 0 then
      local old = redis.call('ZRANGE', KEYS[5], 0, over - 1)
      redis.call('HDEL', KEYS[2], unpack(old))
      redis.call('ZREMRANGEBYRANK', KEYS[5], 0, over - 1)
    end
  end
end
if ARGV[13] == '1' then redis.call('SET', KEYS[7], '1') end
return 1
