// Prototype, bench-only: one shared timer for every pending inline deadline instead of a setTimeout +
// clearTimeout per request. Deadlines land in 50 ms buckets; one unref'd interval runs only while some
// are pending. An 8 s deadline firing up to 50 ms late changes nothing for a sender that waits 10 s.
export function coarseDeadlines(resolutionMs = 50) {
  const buckets = new Map(); // bucket end (ms) → Set of callbacks
  let timer;
  let pending = 0;
  function tick() {
    const now = Date.now();
    for (const [end, set] of buckets) {
      if (end > now) continue;
      buckets.delete(end);
      for (const fire of set) {
        pending--;
        fire();
      }
    }
    if (pending === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  }
  return {
    add(ms, fire) {
      const end = Math.ceil((Date.now() + ms) / resolutionMs) * resolutionMs;
      let set = buckets.get(end);
      if (set === undefined) buckets.set(end, (set = new Set()));
      set.add(fire);
      pending++;
      if (timer === undefined) {
        timer = setInterval(tick, resolutionMs);
        timer.unref();
      }
      return () => {
        if (set.delete(fire)) pending--;
      };
    },
  };
}
