import { defineScript } from './redis-client.js';

// The payment book's keys, all under one prefix whose {hash tag} puts them in one Cluster slot:
// r:<resource key> (STRING, the resource's JSON), held (HASH held id → stored held event), held-keys
// (HASH "<resource key>\n<dedupe key>" → open held id), open (ZSET open held ids by heldAt), closed
// (ZSET closed held ids by closedAt, trimmed), disputed (SET of resource keys with disputes), expecting.
// Writes are compare-and-set on the SHA1 of what was read, so two instances never interleave on one resource.

/** KEYS[1] resource · KEYS[2] held-keys · KEYS[3] held · KEYS[4] expecting · ARGV[1] held-keys field → [resource, expecting, open held]. */
export const readForRecordScript = defineScript(`
local heldId = ARGV[1] ~= '' and redis.call('HGET', KEYS[2], ARGV[1])
return { redis.call('GET', KEYS[1]) or '', redis.call('GET', KEYS[4]) or '', heldId and redis.call('HGET', KEYS[3], heldId) or '' }`);

/** KEYS… any keys → their values ('' when absent); KEYS[1] may be a HASH with ARGV[1] its field. */
export const readScript = defineScript(`
local out = {}
for i, key in ipairs(KEYS) do
  if ARGV[i] and ARGV[i] ~= '' then out[i] = redis.call('HGET', key, ARGV[i]) or '' else out[i] = redis.call('GET', key) or '' end
end
return out`);

/**
 * KEYS: 1 resource · 2 held · 3 held-keys · 4 open · 5 closed · 6 disputed · 7 expecting.
 * ARGV: 1 resource SHA read ('' absent, '*' not written) · 2 resource JSON · 3 retention ms (0: none) ·
 * 4 disputes (2 open, 1 closed only, 0 none) · 5 resource key · 6 held id ('' none) · 7 held SHA read ('' absent) ·
 * 8 held JSON · 9 op (open | close | keep) · 10 score ms · 11 held-keys field · 12 closed kept · 13 '1' marks expectations in use.
 * → 1 written, 0 something changed since it was read (read again and retry).
 */
export const commitScript = defineScript(`
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
return 1`);

/** KEYS[1] open · KEYS[2] held → the stored open held events, oldest first. */
export const listHeldScript = defineScript(`
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))`);

/** KEYS[1] disputed · ARGV[1] resource key prefix → the JSON of every resource with disputes; forgets expired ones. */
export const listDisputedScript = defineScript(`
local out = {}
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local value = redis.call('GET', ARGV[1] .. member)
  if value then table.insert(out, value) else redis.call('SREM', KEYS[1], member) end
end
return out`);
