import { LRUCache } from 'lru-cache';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';

/** The memory store answers synchronously. */
export interface MemoryDedupeStore extends DedupeStore {
  claim(key: string, ttlMs: number): ClaimResult;
  complete(key: string, ttlMs: number): void;
  release(key: string): void;
  readonly size: number;
}

export interface MemoryDedupeStoreOptions {
  /** Most keys kept; the least recently claimed go first. Default 100 000. */
  max?: number;
}

const inFlight = 1;
const done = 2;

/**
 * The default store: bounded LRU with per-key TTL, in this process only. Instances behind a load
 * balancer each have their own; use `pixhook/redis` to share one.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): MemoryDedupeStore {
  const cache = new LRUCache<string, typeof inFlight | typeof done>({
    max: options.max ?? 100_000,
    ttlAutopurge: false,
    ttlResolution: 1,
  });
  return {
    local: true,
    get size() {
      return cache.size;
    },
    claim(key, ttlMs) {
      const state = cache.get(key);
      if (state === done) return 'done';
      if (state === inFlight) return 'in_flight';
      cache.set(key, inFlight, { ttl: ttlMs });
      return 'claimed';
    },
    complete(key, ttlMs) {
      cache.set(key, done, { ttl: ttlMs });
    },
    release(key) {
      cache.delete(key);
    },
  };
}
