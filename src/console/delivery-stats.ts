import type { JournalEntry } from '../journal/delivery-journal.js';

/** What the charts draw: one point per minute of the last hour. */
interface DeliveryStats {
  /** Epoch seconds of each minute's start (uPlot's x axis). */
  minutes: number[];
  /** Deliveries per minute by answer class. */
  answers: { '2xx': number[]; '4xx': number[]; '5xx': number[] };
  /** Handler run durations per minute, in ms (null when no run). */
  latency: { p50: (number | null)[]; p99: (number | null)[] };
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, index)]! * 10) / 10;
}

export function deliveryStats(entries: readonly JournalEntry[], now = Date.now(), minutesBack = 60): DeliveryStats {
  const end = Math.floor(now / 60_000);
  const start = end - minutesBack + 1;
  const minutes: number[] = [];
  const answers = { '2xx': [] as number[], '4xx': [] as number[], '5xx': [] as number[] };
  const durations: number[][] = [];
  for (let m = start; m <= end; m++) {
    minutes.push(m * 60);
    answers['2xx'].push(0);
    answers['4xx'].push(0);
    answers['5xx'].push(0);
    durations.push([]);
  }
  for (const entry of entries) {
    const minute = Math.floor(Date.parse(entry.at) / 60_000);
    if (!(minute >= start && minute <= end)) continue;
    const slot = minute - start;
    const answer = entry.status >= 500 ? '5xx' : entry.status >= 300 ? '4xx' : '2xx';
    answers[answer][slot]!++;
    for (const attempt of entry.attempts) durations[slot]!.push(attempt.durationMs);
  }
  const sorted = durations.map((list) => list.sort((a, b) => a - b));
  return { minutes, answers, latency: { p50: sorted.map((d) => percentile(d, 50)), p99: sorted.map((d) => percentile(d, 99)) } };
}
