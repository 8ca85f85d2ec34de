-- KEYS[1] open (or closed) · KEYS[2] held → the stored held events, oldest first.
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))
