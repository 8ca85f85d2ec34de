// A journal id sorts by arrival time as text, across instances: the time in ms (base 36, 9 digits, good
// until the year 5188), a counter within this process, then a random tag telling instances apart.
const tag = Math.random().toString(36).slice(2, 6).padEnd(4, '0');
let seq = 0;

let lastMs = Number.NaN;
let lastPrefix = '';

/** A new journal id: unique, and ordered by time when compared as strings. */
export function journalId(now = Date.now()): string {
  return journalIdAt(now, nextJournalSeq());
}

/** The next counter value, taken when a delivery arrives; its id can be built later (`journalIdAt`) and sorts the same. */
export function nextJournalSeq(): number {
  seq = (seq + 1) % 2_176_782_336; // 36^6: the counter stays 6 digits
  return seq;
}

/** The id of a delivery that arrived at `now` (ms) and took counter value `n`. */
export function journalIdAt(now: number, n: number): string {
  if (now !== lastMs) {
    lastPrefix = `${now.toString(36).padStart(9, '0')}-`;
    lastMs = now;
  }
  return `${lastPrefix}${n.toString(36).padStart(6, '0')}${tag}`;
}
