import { LRUCache } from 'lru-cache';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';

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
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore & { readonly size: number } {
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
      let result: ClaimResult = 'claimed';
      if (state === done) result = 'done';
      else if (state === inFlight) result = 'in_flight';
      else cache.set(key, inFlight, { ttl: ttlMs });
      return Promise.resolve(result);
    },
    complete(key, ttlMs) {
      cache.set(key, done, { ttl: ttlMs });
      return Promise.resolve();
    },
    release(key) {
      cache.delete(key);
      return Promise.resolve();
    },
  };
}
