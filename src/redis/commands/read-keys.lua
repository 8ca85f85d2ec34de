-- KEYS… any keys → their values ('' when absent); KEYS[i] is a HASH read at field ARGV[i] when that is given.
local out = {}
for i, key in ipairs(KEYS) do
  if ARGV[i] and ARGV[i] ~= '' then out[i] = redis.call('HGET', key, ARGV[i]) or '' else out[i] = redis.call('GET', key) or '' end
end
return out
