import type { OrderLeases } from '../shared/order-lease.js';
import { ticketQueues } from './memory-tickets.js';

interface Lease {
  fence: string;
  /** `Infinity` once pinned: the run holding it lives in this process, and gives it back when it ends. */
  expiresAt: number;
}

/**
 * Leases in this process, served to their waiters in arrival order (a ticket queue per resource): for
 * processings that share one in-process store (or background mode's own concurrency, where two events of one
 * charge would otherwise run side by side). Synchronous, like the memory store, and pinned like its claims
 * while the run holding one lives (`pin`). A resource's lease is one
 * entry, deleted when given back, so a delivery's take and give are two lookups each. Fences count up across
 * every resource of these leases, so a fence is never given twice, even after its resource's entry is gone.
 */
export function memoryOrderLeases(now: () => number = Date.now): OrderLeases {
  const leases = new Map<string, Lease>();
  const tickets = ticketQueues(now);
  let counter = 0;

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
      if ((lease !== undefined && lease.expiresAt > at) || !tickets.first(resource, owner)) {
        if (ask?.ticketTtlMs !== undefined) tickets.wait(resource, owner, ask.ticketTtlMs);
        return undefined;
      }
      tickets.withdraw(resource, owner);
      const fence = `${++counter}:${owner}`;
      if (lease === undefined) leases.set(resource, { fence, expiresAt: at + ttlMs });
      else {
        lease.fence = fence;
        lease.expiresAt = at + ttlMs;
      }
      return fence;
    },
    withdraw(resource, owner) {
      tickets.withdraw(resource, owner);
    },
    extend(resource, fence, ttlMs) {
      const lease = heldBy(resource, fence);
      if (lease === undefined) return false;
      // A pinned lease stays pinned.
      if (lease.expiresAt !== Infinity) lease.expiresAt = now() + ttlMs;
      return true;
    },
    give(resource, fence) {
      if (heldBy(resource, fence) === undefined) return false;
      leases.delete(resource);
      return true;
    },
    pin(resource, fence) {
      const lease = heldBy(resource, fence);
      if (lease === undefined) return false;
      lease.expiresAt = Infinity;
      return true;
    },
  };
}
