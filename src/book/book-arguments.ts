import { PixhookError } from '../shared/pixhook-error.js';
import type { Dispute, DisputeWithAge, DuplicateHold, RecordContext, RecordResult, ReleaseTrail } from './payment-book.js';

// What every backend of the payment book checks and builds the same way, so the three agree.

/** `dismiss`'s note: a string, bounded (it is stored with the held event). */
export function checkNote(note: unknown): asserts note is string {
  if (typeof note !== 'string' || note.length > 2000) {
    throw new PixhookError('validation_failed', 'pixhook: `note` must be a string of at most 2000 characters.');
  }
}

/** `release`'s and `dismiss`'s trail: an optional note (bounded like `dismiss`'s) and who decided (at most 200 characters). */
export function checkTrail(trail: unknown): ReleaseTrail {
  if (trail === undefined) return {};
  if (typeof trail !== 'object' || trail === null) {
    throw new PixhookError('validation_failed', 'pixhook: the release options must be an object { note?, by? }.');
  }
  const { note, by } = trail as ReleaseTrail;
  if (note !== undefined) checkNote(note);
  if (by !== undefined && (typeof by !== 'string' || by.length > 200)) {
    throw new PixhookError('validation_failed', 'pixhook: `by` must be a string of at most 200 characters.');
  }
  const checked: ReleaseTrail = {};
  if (note !== undefined) checked.note = note;
  if (by !== undefined) checked.by = by;
  return checked;
}

/** `held(filter)`: true for the closed list, false for the open one; anything else is refused. */
export function wantsClosed(filter: { state?: 'open' | 'closed' } | undefined): boolean {
  const state = filter?.state;
  if (state === undefined || state === 'open') return false;
  if (state === 'closed') return true;
  throw new PixhookError('validation_failed', 'pixhook: `held({ state })` takes "open" or "closed".');
}

/** `record` needs the delivery's dedupe key: a retry of a held event is found by it. */
export function checkDedupeKey(context: RecordContext | undefined): void {
  if (typeof context?.dedupeKey !== 'string' || context.dedupeKey === '') {
    throw new PixhookError('validation_failed', 'pixhook: `dedupeKey` must be a non-empty string.');
  }
}

/** `retryOfHeld`'s answer: the same hold again, or undefined when the step did anything else. */
export function asDuplicateHold(result: RecordResult | undefined): DuplicateHold | undefined {
  return result?.outcome === 'duplicate_hold'
    ? { outcome: result.outcome, violations: result.violations, heldId: result.heldId }
    : undefined;
}

/** `book.disputes(filter)`: the disputes of every resource, with their age at `at`, oldest first. */
export function disputesWithAge(lists: Iterable<readonly Dispute[]>, filter: { open?: boolean }, at: number): DisputeWithAge[] {
  const listed: DisputeWithAge[] = [];
  for (const disputes of lists) {
    for (const dispute of disputes) {
      if (filter.open !== undefined && dispute.open !== filter.open) continue;
      listed.push({ ...dispute, ageMs: Math.max(0, at - Date.parse(dispute.openedAt)) });
    }
  }
  return listed.sort((a, b) => b.ageMs - a.ageMs);
}
