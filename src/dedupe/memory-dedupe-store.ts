import type { ClaimResult, DedupeStore } from './dedupe-store.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** The memory store answers synchronously. */
export interface MemoryDedupeStore extends DedupeStore {
  claim(key: string, owner: string, ttlMs: number): ClaimResult;
  complete(key: string, owner: string, ttlMs: number): boolean;
  release(key: string, owner: string): void;
  extend(key: string, owner: string, ttlMs: number): boolean;
  pin(key: string, owner: string): boolean;
  /** Keys held now, expired ones included until their generation is dropped (at most 2 × `max`). */
  readonly size: number;
}

export interface MemoryDedupeStoreOptions {
  /**
   * The newest `max` keys written are always remembered (until their TTL). Default 100 000. Older
   * keys are dropped a generation at a time, so up to 2 × `max` are held in memory.
   */
  max?: number;
}

/** A claim in flight: its owner's token and when it lapses. A done key holds a bare number instead. */
interface Claim {
  owner: string;
  until: number;
}

type Entry = Claim | number;

/**
 * The default store: bounded, with per-key TTL, in this process only. Instances behind a load
 * balancer each have their own; use `pixhook/redis` or `pixhook/postgres` to share one.
 *
 * Two generations of `Map`: writes go to the young one; once it holds `max` keys the old one is
 * dropped whole and the young one ages. No per-key list node and no eviction walk (lru-cache cost
 * about 1 µs per claim + complete), and a done key is one Map entry holding a number.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): MemoryDedupeStore {
  refuseUnknownOptions(options, memoryDedupeStoreOptionNames, 'memoryDedupeStore');
  const max = Math.max(1, Math.floor(options.max ?? 100_000));
  // Monotonic (a wall-clock jump must not lapse a claim early: another run would take the event), in
  // whole ms from the process start, so expiries are small integers, stored without a heap number.
  const clock = globalThis.performance;
  const msNow = () => Math.ceil(clock.now());
  let young = new Map<string, Entry>();
  let old = new Map<string, Entry>();
  // Claims of live runs (`pin`): they lapse neither by the clock nor with a dropped generation.
  const pinned = new Map<string, Claim>();

  /** The key's live entry; an expired one reads as absent. */
  function lookup(key: string, now: number): Entry | undefined {
    if (pinned.size !== 0) {
      const claim = pinned.get(key);
      if (claim !== undefined) return claim;
    }
    let entry = young.get(key);
    if (entry === undefined) entry = old.get(key);
    if (entry === undefined) return undefined;
    return (typeof entry === 'number' ? entry : entry.until) > now ? entry : undefined;
  }

  function put(key: string, entry: Entry): void {
    if (young.size >= max && !young.has(key)) {
      old = young;
      young = new Map();
    }
    young.set(key, entry);
  }

  // Both generations: an older entry must not resurface once the newer one is gone.
  function remove(key: string): void {
    if (pinned.size !== 0) pinned.delete(key);
    young.delete(key);
    old.delete(key);
  }

  return {
    local: true,
    get size() {
      return young.size + old.size;
    },
    claim(key, owner, ttlMs) {
      const now = msNow();
      const entry = lookup(key, now);
      if (typeof entry === 'number') return 'done';
      if (entry !== undefined) return 'in_flight';
      put(key, { owner, until: now + ttlMs });
      return 'claimed';
    },
    complete(key, owner, ttlMs) {
      const now = msNow();
      const entry = lookup(key, now);
      if (entry !== undefined && typeof entry !== 'number' && entry.owner !== owner) return false;
      if (pinned.size !== 0) pinned.delete(key);
      put(key, now + ttlMs);
      return true;
    },
    release(key, owner) {
      const entry = lookup(key, msNow());
      if (entry !== undefined && typeof entry !== 'number' && entry.owner === owner) remove(key);
    },
    extend(key, owner, ttlMs) {
      const now = msNow();
      const entry = lookup(key, now);
      if (entry === undefined || typeof entry === 'number' || entry.owner !== owner) return false;
      entry.until = now + ttlMs;
      put(key, entry); // Into the young generation: a renewed claim must outlive older keys.
      return true;
    },
    pin(key, owner) {
      const entry = lookup(key, msNow());
      if (entry === undefined || typeof entry === 'number' || entry.owner !== owner) return false;
      pinned.set(key, entry);
      return true;
    },
  };
}

/** Every option memoryDedupeStore takes. */
const memoryDedupeStoreOptionNames = optionNames<MemoryDedupeStoreOptions>()(['max']);
