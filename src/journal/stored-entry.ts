import type { JournalAttempt, JournalEntry } from './delivery-journal.js';

/** An entry as a shared backend stores it: its fields as JSON, its attempts apart (appended without a read). */
export function entryText(entry: JournalEntry): { fields: string; attempts: string } {
  const { attempts, ...fields } = entry;
  return { fields: JSON.stringify(fields), attempts: attempts.length === 0 ? '' : JSON.stringify(attempts) };
}

/** The entry back from its stored texts; undefined when the fields are missing or not JSON. */
export function entryFromText(fields: string, attempts: string): JournalEntry | undefined {
  if (fields === '') return undefined;
  try {
    const entry = JSON.parse(fields) as JournalEntry;
    entry.attempts = attempts === '' ? [] : (JSON.parse(attempts) as JournalAttempt[]);
    return entry;
  } catch {
    return undefined;
  }
}
