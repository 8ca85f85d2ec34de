import type { OrderLeases } from '../shared/order-lease.js';
import { ticketQueues } from './memory-tickets.js';

interface Lease {
  /** Empty once given back or lapsed: the entry stays only to carry the counter. */
  fence: string;
  expiresAt: number;
  /** Orders queued jobs of the resource; it goes with the entry once nothing is queued. */
  counter: number;
}

interface Pending {
  order: number;
  at: number;
}

/**
 * Leases in this process, served to their waiters in arrival order (a ticket queue per resource): for processings that share one in-process store (or background mode's own
 * concurrency, where two events of one charge would otherwise run side by side). Synchronous, like the
 * memory store. Queued keys older than `staleMs` stop holding up the jobs behind them. A resource's
 * lease and its counter are one entry, so a delivery's take and give are two lookups each.
 */
export function memoryOrderLeases(staleMs: number, now: () => number = Date.now): OrderLeases {
  const leases = new Map<string, Lease>();
  const pending = new Map<string, Map<string, Pending>>();
  const tickets = ticketQueues(now);

  /** The resource's entry while its lease is held by `fence` and not lapsed. */
  const heldBy = (resource: string, fence: string): Lease | undefined => {
    const lease = leases.get(resource);
    return lease !== undefined && lease.fence === fence && lease.expiresAt > now() ? lease : undefined;
  };

  return {
    take(resource, owner, ttlMs, ask) {
      const lease = leases.get(resource);
      const at = now();
      // Busy, or a live waiter queued before `owner`: wait (with a ticket when asked to).
      if ((lease !== undefined && lease.fence !== '' && lease.expiresAt > at) || !tickets.first(resource, owner)) {
        if (ask?.ticketTtlMs !== undefined) tickets.wait(resource, owner, ask.ticketTtlMs);
        return undefined;
      }
      tickets.withdraw(resource, owner);
      const counter = (lease?.counter ?? 0) + 1;
      const fence = `${counter}:${owner}`;
      if (lease === undefined) leases.set(resource, { fence, expiresAt: at + ttlMs, counter });
      else {
        lease.fence = fence;
        lease.expiresAt = at + ttlMs;
        lease.counter = counter;
      }
      return fence;
    },
    withdraw(resource, owner) {
      tickets.withdraw(resource, owner);
    },
    extend(resource, fence, ttlMs) {
      const lease = heldBy(resource, fence);
      if (lease === undefined) return false;
      lease.expiresAt = now() + ttlMs;
      return true;
    },
    give(resource, fence) {
      const lease = heldBy(resource, fence);
      if (lease === undefined) return false;
      // Fences are unique by their owner; the counter only orders queued jobs, so it goes with the last of them.
      if (pending.has(resource)) lease.fence = '';
      else leases.delete(resource);
      return true;
    },
    queued(resource, fence, key) {
      let keys = pending.get(resource);
      if (keys === undefined) pending.set(resource, (keys = new Map()));
      keys.set(key, { order: Number(fence.slice(0, fence.indexOf(':'))), at: now() });
      return Promise.resolve();
    },
    aheadOf(resource, key) {
      const keys = pending.get(resource);
      const mine = keys?.get(key);
      if (keys === undefined || mine === undefined) return Promise.resolve(undefined);
      const staleBefore = now() - staleMs;
      let ahead: [string, Pending] | undefined;
      for (const [other, entry] of keys) {
        if (entry.at < staleBefore && other !== key) keys.delete(other);
        else if (entry.order < mine.order && (ahead === undefined || entry.order < ahead[1].order)) ahead = [other, entry];
      }
      return Promise.resolve(ahead?.[0]);
    },
    settled(resource, key) {
      const keys = pending.get(resource);
      keys?.delete(key);
      if (keys?.size === 0) pending.delete(resource);
      return Promise.resolve();
    },
  };
}
