import type { OrderLeases } from '../shared/order-lease.js';

interface Lease {
  fence: string;
  expiresAt: number;
}

interface Pending {
  order: number;
  at: number;
}

/**
 * Leases in this process: for processings that share one in-process store (or background mode's own
 * concurrency, where two events of one charge would otherwise run side by side). Synchronous, like the
 * memory store. Queued keys older than `staleMs` stop holding up the jobs behind them.
 */
export function memoryOrderLeases(staleMs: number, now: () => number = Date.now): OrderLeases {
  const leases = new Map<string, Lease>();
  const counters = new Map<string, number>();
  const pending = new Map<string, Map<string, Pending>>();

  const held = (resource: string): Lease | undefined => {
    const lease = leases.get(resource);
    if (lease === undefined) return undefined;
    if (lease.expiresAt > now()) return lease;
    leases.delete(resource);
    return undefined;
  };

  return {
    take(resource, owner, ttlMs) {
      if (held(resource) !== undefined) return undefined;
      const counter = (counters.get(resource) ?? 0) + 1;
      counters.set(resource, counter);
      const fence = `${counter}:${owner}`;
      leases.set(resource, { fence, expiresAt: now() + ttlMs });
      return fence;
    },
    extend(resource, fence, ttlMs) {
      const lease = held(resource);
      if (lease?.fence !== fence) return false;
      lease.expiresAt = now() + ttlMs;
      return true;
    },
    give(resource, fence) {
      if (held(resource)?.fence !== fence) return false;
      leases.delete(resource);
      // Fences are unique by their owner; the counter only orders queued jobs, so it goes with the last of them.
      if (!pending.has(resource)) counters.delete(resource);
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
