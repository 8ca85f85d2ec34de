import { fenceOrder, type OrderLeases } from '../shared/order-lease.js';
import { scriptRunner, type RedisClientLike } from './redis-client.js';
import { replyText } from './redis-replies.js';
import {
  extendLeaseScript,
  giveLeaseScript,
  aheadScript,
  queueInOrderScript,
  settleTurnScript,
  takeLeaseScript,
} from './order-lease-scripts.js';

// The counter and the queued jobs of a resource are kept this long after its last use; a queued job older than
// this no longer holds up the jobs behind it (removed by hand, or its receiver died between queuing and answering).
const keepMs = 60 * 60_000;

/** The lease key of `resource` for a store with `prefix` (the payment book's commit gives it back in its own script). */
export function orderLeaseKey(prefix: string, resource: string): string {
  return /\{[^}]+\}/.test(prefix) ? `${prefix}order:${resource}` : `${prefix}order:{${resource}}`;
}

/**
 * The resource order leases of a Redis dedupe store, on its client beside its claims. With a {hash tag} in the
 * store's prefix every lease shares the store's slot (so a claim script could take it in the same step);
 * without one, each resource's keys share a slot of their own (`{t:<id>}`), which also works on a Cluster.
 */
export function redisOrderLeases(client: RedisClientLike, prefix: string, now: () => number = Date.now): OrderLeases {
  const redis = scriptRunner(client);
  const base = (resource: string) => orderLeaseKey(prefix, resource);
  const ms = (value: number) => String(Math.max(1, Math.ceil(value)));

  return {
    async take(resource, owner, ttlMs) {
      const key = base(resource);
      const fence = replyText(await redis.run(takeLeaseScript, [key, key + ':n'], [owner, ms(ttlMs), ms(keepMs)]));
      return fence === '' ? undefined : fence;
    },
    async extend(resource, fence, ttlMs) {
      return Number(await redis.run(extendLeaseScript, [base(resource)], [fence, ms(ttlMs)])) === 1;
    },
    async give(resource, fence) {
      return Number(await redis.run(giveLeaseScript, [base(resource)], [fence])) === 1;
    },
    async queued(resource, fence, key) {
      const at = base(resource);
      await redis.run(queueInOrderScript, [at + ':q', at + ':at'], [String(fenceOrder(fence)), key, String(now()), ms(keepMs)]);
    },
    async aheadOf(resource, key) {
      const at = base(resource);
      const ahead = replyText(await redis.run(aheadScript, [at + ':q', at + ':at'], [key, String(now()), ms(keepMs)]));
      return ahead === '' ? undefined : ahead;
    },
    async settled(resource, key) {
      const at = base(resource);
      await redis.run(settleTurnScript, [at + ':q', at + ':at'], [key]);
    },
  };
}
