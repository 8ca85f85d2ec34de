// Deliveries arriving in the same millisecond share one ISO string: toISOString is a hot call at load.
let lastMs = Number.NaN;
let lastIso = '';

/** `new Date(ms).toISOString()`, remembered for the last millisecond asked. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
