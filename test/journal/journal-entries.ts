import type { JournalEntry } from '../../src/index.js';

let n = 0;

/** A journal entry for tests: ids sort by `n`, so a later call is newer. */
export function entry(fields: Partial<JournalEntry> = {}): JournalEntry {
  n++;
  return {
    id: `t${String(n).padStart(8, '0')}`,
    at: new Date(Date.UTC(2026, 4, 1, 12, 0, n)).toISOString(),
    verified: true,
    status: 200,
    event: 'transaction_paid',
    key: `k${n}`,
    resourceId: `r${n}`,
    bodyBytes: 10,
    body: '{"x":1}',
    attempts: [],
    ...fields,
  };
}
