import type { OrderLeases, Taken } from '../shared/order-lease.js';
import { isClusterClient, scriptRunner, type RedisClientLike } from './redis-client.js';
import { replyArray, replyText } from './redis-replies.js';
import { extendLeaseScript, giveLeaseScript, takeManyScript, takeLeaseScript, withdrawTicketScript } from './order-lease-scripts.js';

// A resource's counter and its waiters' tickets are kept this long after its last use.
export const keepMs = 60 * 60_000;

/**
 * The Redis key of `resource`'s order lease for a dedupe store with `prefix` (its fence is the value): what a
 * script that gives the lease back in the same step as its own writes passes as that key (give-lease.lua).
 */
export function orderLeaseKey(prefix: string, resource: string): string {
  return isTagged(prefix) ? `${prefix}order:${resource}` : `${prefix}order:{${resource}}`;
}

// A process has a handful of prefixes and asks about them on every delivery: each is looked at once.
const taggedPrefixes = new Map<string, boolean>();

/** True when `prefix` holds a `{…}` with something inside (then every lease shares the prefix's slot). */
function isTagged(prefix: string): boolean {
  let known = taggedPrefixes.get(prefix);
  if (known === undefined) {
    known = /\{[^}]+\}/.test(prefix);
    if (taggedPrefixes.size < 64) taggedPrefixes.set(prefix, known);
  }
  return known;
}

/** The keys a take of `resource`'s lease touches: the lease, its counter, its tickets and their expiries. */
export function orderLeaseKeys(prefix: string, resource: string): [lease: string, counter: string, tickets: string, expiries: string] {
  const key = orderLeaseKey(prefix, resource);
  return [key, key + ':n', key + ':w', key + ':x'];
}

/**
 * The resource order leases of a Redis dedupe store, on its client beside its claims. With a {hash tag} in the
 * store's prefix every lease shares the store's slot (so a claim script could take it in the same step);
 * without one, each resource's keys share a slot of their own (`{t:<id>}`), which also works on a Cluster.
 *
 * Keys of one resource, `<base>` = `<prefix>order:<resource>` (or `<prefix>order:{<resource>}`): `<base>` the
 * lease (its fence, PX the lease TTL) · `<base>:n` the counter (ticket numbers, and the fences of counted takes: the joined claim fences its take with a token of its own) · `<base>:w` the
 * waiters' tickets (ZSET, owner by arrival number) · `<base>:x` their expiries (ZSET, owner by server ms). A take reads the delivery's dedupe key in the same step
 * when it shares the lease's slot (one server, or a tagged prefix), so a delivery already done never queues.
 */
export function redisOrderLeases(client: RedisClientLike, prefix: string): OrderLeases {
  const redis = scriptRunner(client);
  const tagged = isTagged(prefix);
  const base = (resource: string) => orderLeaseKey(prefix, resource);
  const ms = (value: number) => String(Math.max(1, Math.ceil(value)));
  const seesClaims = tagged || !isClusterClient(client);

  const leases: OrderLeases = {
    async take(resource, owner, ttlMs, ask) {
      const keys: string[] = orderLeaseKeys(prefix, resource);
      if (ask?.key !== undefined && seesClaims) keys.push(prefix + ask.key);
      const ticket = ask?.ticketTtlMs === undefined ? '' : ms(ask.ticketTtlMs);
      const taken = replyText(await redis.run(takeLeaseScript, keys, [owner, ms(ttlMs), ms(keepMs), ticket]));
      return taken === '' ? undefined : (taken as Taken);
    },
    async withdraw(resource, owner) {
      const [, , tickets, expiries] = orderLeaseKeys(prefix, resource);
      await redis.run(withdrawTicketScript, [tickets, expiries], [owner]);
    },
    async extend(resource, fence, ttlMs) {
      return Number(await redis.run(extendLeaseScript, [base(resource)], [fence, ms(ttlMs)])) === 1;
    },
    async give(resource, fence) {
      return Number(await redis.run(giveLeaseScript, [base(resource)], [fence])) === 1;
    },
  };
  // Leases of several resources in one script: only where they share a slot (a tagged prefix, or one server).
  if (tagged || !isClusterClient(client)) {
    leases.takeMany = async (given, takes, ttlMs, ask) => {
      const keys: string[] = [];
      const args = [String(takes.length), ms(ttlMs), ms(keepMs), ask?.ticketTtlMs === undefined ? '' : ms(ask.ticketTtlMs)];
      // One key per take: the script names the lease's counter, tickets and expiries from it (the same slot).
      for (const { resource, owner } of takes) {
        keys.push(base(resource));
        args.push(owner);
      }
      for (const { resource, fence } of given) {
        keys.push(base(resource));
        args.push(fence);
      }
      const answers = replyArray(await redis.run(takeManyScript, keys, args));
      return takes.map((_, i) => {
        const taken = replyText(answers[i]);
        return taken === '' ? undefined : (taken as Taken);
      });
    };
  }
  return leases;
}
