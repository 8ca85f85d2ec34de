import { defineScript } from './redis-client.js';

// Values: `c:<token>` while a claim is in flight, `d` once processed.

/** KEYS[1] key · ARGV[1] token · ARGV[2] claim TTL ms → 'claimed' | 'in_flight' | 'done'. */
export const claimScript = defineScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
  return 'claimed'
end
if v == 'd' then return 'done' end
return 'in_flight'
`);

/** KEYS[1] key · ARGV[1] done TTL ms. Processed is a fact, whoever claimed: always marks done. */
export const completeScript = defineScript(`
redis.call('SET', KEYS[1], 'd', 'PX', ARGV[1])
return 1
`);

/** KEYS[1] key · ARGV[1] token. Deletes only our own claim: never a done key, never another's claim. */
export const releaseScript = defineScript(`
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** KEYS[1] key · ARGV[1] token · ARGV[2] claim TTL ms. Renews only our own claim. */
export const extendScript = defineScript(`
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);
