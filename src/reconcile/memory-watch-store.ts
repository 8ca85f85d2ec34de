import type { WatchEntry, WatchStats, WatchStore } from './watch-store.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface MemoryWatchStoreOptions {
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The watch list in this process: for one reconciler (a restart forgets it: use Redis to keep it). */
export function memoryWatchStore(options: MemoryWatchStoreOptions = {}): WatchStore {
  refuseUnknownOptions(options, memoryWatchStoreOptionNames, 'memoryWatchStore');
  const now = options.now ?? Date.now;
  const entries = new Map<string, WatchEntry>();
  const leases = new Map<string, { owner: string; until: number }>();
  let reads: number[] = [];

  const holds = (chargeId: string, owner: string) => {
    const lease = leases.get(chargeId);
    return lease !== undefined && lease.owner === owner && lease.until > now();
  };

  return {
    async watch(chargeId, createdAt = now()) {
      if (!entries.has(chargeId)) entries.set(chargeId, { chargeId, createdAt, checks: 0, nextCheckAt: createdAt });
    },
    async due(chargeId, at) {
      const entry = entries.get(chargeId);
      const lease = leases.get(chargeId);
      if (entry === undefined || (lease !== undefined && lease.until > now())) return false;
      entry.nextCheckAt = Math.min(entry.nextCheckAt, at);
      return true;
    },
    async lease(at, limit, leaseMs, owner) {
      const due: WatchEntry[] = [];
      const sorted = [...entries.values()].sort((a, b) => a.nextCheckAt - b.nextCheckAt);
      for (const entry of sorted) {
        if (due.length >= limit || entry.nextCheckAt > at) break;
        const lease = leases.get(entry.chargeId);
        if (lease && lease.until > at) continue;
        leases.set(entry.chargeId, { owner, until: at + leaseMs });
        due.push({ ...entry });
      }
      return due;
    },
    async reschedule(chargeId, owner, nextCheckAt, checks) {
      const entry = entries.get(chargeId);
      if (!entry || !holds(chargeId, owner)) return false;
      entry.nextCheckAt = nextCheckAt;
      entry.checks = checks;
      leases.delete(chargeId);
      return true;
    },
    async finish(chargeId, owner) {
      if (!holds(chargeId, owner)) return false;
      entries.delete(chargeId);
      leases.delete(chargeId);
      return true;
    },
    async reserveReads(want, limit, windowMs, at) {
      reads = reads.filter((t) => t > at - windowMs);
      const granted = Math.max(0, Math.min(want, limit - reads.length));
      for (let i = 0; i < granted; i++) reads.push(at);
      return granted;
    },
    async stats(): Promise<WatchStats> {
      let oldest: number | undefined;
      for (const entry of entries.values()) if (oldest === undefined || entry.createdAt < oldest) oldest = entry.createdAt;
      return { watched: entries.size, oldestCreatedAt: oldest };
    },
  };
}

/** Every option memoryWatchStore takes. */
const memoryWatchStoreOptionNames = optionNames<MemoryWatchStoreOptions>()(['now']);
