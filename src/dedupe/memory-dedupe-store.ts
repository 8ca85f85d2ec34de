import { LRUCache } from 'lru-cache';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';

/** The memory store answers synchronously. */
export interface MemoryDedupeStore extends DedupeStore {
  claim(key: string, owner: string, ttlMs: number): ClaimResult;
  complete(key: string, owner: string, ttlMs: number): boolean;
  release(key: string, owner: string): void;
  extend(key: string, owner: string, ttlMs: number): boolean;
  readonly size: number;
}

export interface MemoryDedupeStoreOptions {
  /** Most keys kept; the least recently claimed go first. Default 100 000. */
  max?: number;
}

// A done key holds this marker; a claim holds its owner's token (a string).
const done = 1;

/**
 * The default store: bounded LRU with per-key TTL, in this process only. Instances behind a load
 * balancer each have their own; use `pixhook/redis` or `pixhook/postgres` to share one.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): MemoryDedupeStore {
  const cache = new LRUCache<string, string | typeof done>({
    max: options.max ?? 100_000,
    ttlAutopurge: false,
    ttlResolution: 1,
  });
  return {
    local: true,
    get size() {
      return cache.size;
    },
    claim(key, owner, ttlMs) {
      const state = cache.get(key);
      if (state === done) return 'done';
      if (state !== undefined) return 'in_flight';
      cache.set(key, owner, { ttl: ttlMs });
      return 'claimed';
    },
    complete(key, owner, ttlMs) {
      const state = cache.get(key);
      if (state !== undefined && state !== done && state !== owner) return false;
      cache.set(key, done, { ttl: ttlMs });
      return true;
    },
    release(key, owner) {
      if (cache.get(key) === owner) cache.delete(key);
    },
    extend(key, owner, ttlMs) {
      if (cache.get(key) !== owner) return false;
      cache.set(key, owner, { ttl: ttlMs });
      return true;
    },
  };
}
