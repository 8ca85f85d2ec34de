import { randomBytes } from 'node:crypto';

let last = 0;
let sequence = 0;

/** A journal id that sorts by time: milliseconds and a counter in base 36, then randomness. */
export function newJournalId(now = Date.now()): string {
  sequence = now === last ? sequence + 1 : 0;
  last = now;
  return `${now.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(3, '0')}-${randomBytes(4).toString('hex')}`;
}
