// Prototype, bench-only: the memory dedupe store as one Map of key → signed expiry (negative while in
// flight, positive once done), evicting in claim order when full. Same contract as memoryDedupeStore
// (bounded, per-key TTL, claim/complete/release synchronous); no per-entry objects, no LRU list upkeep.
export function mapDedupeStore({ max = 100_000 } = {}) {
  const entries = new Map();
  return {
    local: true,
    get size() {
      return entries.size;
    },
    claim(key, ttlMs) {
      const now = Date.now();
      const value = entries.get(key);
      if (value !== undefined) {
        if (value > 0 && value > now) return 'done';
        if (value < 0 && -value > now) return 'in_flight';
        entries.delete(key); // expired: claim afresh, at the back of the eviction order
      }
      entries.set(key, -(now + ttlMs));
      if (entries.size > max) entries.delete(entries.keys().next().value);
      return 'claimed';
    },
    complete(key, ttlMs) {
      const had = entries.has(key);
      entries.set(key, Date.now() + ttlMs);
      if (!had && entries.size > max) entries.delete(entries.keys().next().value);
    },
    release(key) {
      const value = entries.get(key);
      if (value !== undefined && value < 0) entries.delete(key);
    },
  };
}
