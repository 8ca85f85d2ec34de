// Prototype, bench-only: the memory dedupe store as two generations of Map<key, signed expiry>
// (negative while in flight, positive once done). New entries go to the young Map; when it holds
// max/2 keys the old Map is dropped whole and the young one becomes old. So at most `max` keys are
// kept, the oldest half goes first, and no per-entry object, LRU list or eviction walk is needed.
// (A single Map evicting its first key via keys().next() is O(deleted holes) in V8: 34 µs per claim
// when full — measured, do not.)
export function mapDedupeStore({ max = 100_000 } = {}) {
  const half = Math.max(1, Math.floor(max / 2));
  let young = new Map();
  let old = new Map();
  const lookup = (key) => {
    const v = young.get(key);
    return v !== undefined ? v : old.get(key);
  };
  const put = (key, value) => {
    if (!young.has(key) && young.size >= half) {
      old = young;
      young = new Map();
    }
    young.set(key, value);
  };
  return {
    local: true,
    get size() {
      return young.size + old.size;
    },
    claim(key, ttlMs) {
      const now = Date.now();
      const value = lookup(key);
      if (value !== undefined) {
        if (value > 0 && value > now) return 'done';
        if (value < 0 && -value > now) return 'in_flight';
      }
      put(key, -(now + ttlMs));
      return 'claimed';
    },
    complete(key, ttlMs) {
      put(key, Date.now() + ttlMs);
    },
    release(key) {
      const v = young.get(key);
      if (v !== undefined) {
        if (v < 0) young.delete(key);
      } else if (old.get(key) < 0) old.delete(key);
    },
  };
}
