export function median(values) {
  return percentile(values, 50);
}

/** Nearest-rank percentile of unsorted numbers. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Median and min–max of per-round figures, rounded: `{ median, min, max }`. */
export function spread(values, digits = 3) {
  return { median: round(median(values), digits), min: round(Math.min(...values), digits), max: round(Math.max(...values), digits) };
}

/** "0.91× (0.86–0.95)": a ratio's median with its min–max over the rounds. */
export function showRatio({ median: m, min, max }) {
  return min === max ? `${m}×` : `${m}× (${min}–${max})`;
}

export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
