import { defineScript } from './redis-client.js';

// Values: `c:<owner>` while a claim is in flight, `d` once processed.

/** KEYS[1] key · ARGV[1] owner · ARGV[2] claim TTL ms → 'claimed' | 'in_flight' | 'done'. */
export const claimScript = defineScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
  return 'claimed'
end
if v == 'd' then return 'done' end
return 'in_flight'
`);

/** KEYS[1] key · ARGV[1] owner · ARGV[2] done TTL ms → 1 marked, 0 another owner holds the claim. */
export const completeScript = defineScript(`
local v = redis.call('GET', KEYS[1])
if v and v ~= 'd' and v ~= 'c:' .. ARGV[1] then return 0 end
redis.call('SET', KEYS[1], 'd', 'PX', ARGV[2])
return 1
`);

/** KEYS[1] key · ARGV[1] owner. Deletes only this owner's claim: never a done key, never another's claim. */
export const releaseScript = defineScript(`
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** KEYS[1] key · ARGV[1] owner · ARGV[2] claim TTL ms → 1 renewed, 0 not this owner's claim any more. */
export const extendScript = defineScript(`
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);
