import type { JournalAttempt, JournalEntry, JournalQuery } from './delivery-journal.js';

export const defaultListLimit = 100;
export const maxListLimit = 1000;

/** The query's limit, tolerant: a missing or odd value reads as the default, a large one as the most. */
export function listLimit(query: JournalQuery | undefined): number {
  const limit = query?.limit;
  if (typeof limit !== 'number' || !Number.isFinite(limit)) return defaultListLimit;
  return Math.min(maxListLimit, Math.max(1, Math.floor(limit)));
}

/** True when the entry passes the query's filters (`limit` aside); `before` compares ids, which sort by time. */
export function matchesQuery(entry: JournalEntry, query: JournalQuery | undefined): boolean {
  if (query === undefined) return true;
  if (query.before !== undefined && !(entry.id < query.before)) return false;
  if (query.event !== undefined && entry.event !== query.event) return false;
  if (query.status !== undefined && entry.status !== query.status) return false;
  if (query.reason !== undefined && entry.reason !== query.reason) return false;
  if (query.resource !== undefined && entry.resourceId !== query.resource) return false;
  return true;
}

/** A copy a reader may change without touching the journal's own (its attempts and warnings are copied too). */
export function copyEntry(entry: JournalEntry): JournalEntry {
  const copy: JournalEntry = { ...entry, attempts: entry.attempts.map(copyAttempt) };
  if (entry.warnings !== undefined) copy.warnings = [...entry.warnings];
  return copy;
}

export function copyAttempt(attempt: JournalAttempt): JournalAttempt {
  return { ...attempt };
}
