// Deliveries arriving in the same millisecond share one ISO string: toISOString is a hot call at load.
// Two slots: an entry's `at` (Date.now()) and its attempt's (performance's clock) can be a millisecond
// apart, and one slot would then miss on every call, alternating between them.
let lastMs = Number.NaN;
let lastIso = '';
let otherMs = Number.NaN;
let otherIso = '';

/** `new Date(ms).toISOString()`, remembered for the last two milliseconds asked. */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (ms === otherMs) return otherIso;
  otherMs = lastMs;
  otherIso = lastIso;
  lastIso = new Date(ms).toISOString();
  lastMs = ms;
  return lastIso;
}
