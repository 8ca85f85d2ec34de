-- KEYS[1] disputed · ARGV[1] resource key prefix → the JSON of every resource with disputes; forgets expired ones.
local out = {}
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local value = redis.call('GET', ARGV[1] .. member)
  if value then table.insert(out, value) else redis.call('SREM', KEYS[1], member) end
end
return out
