import { PixhookError } from '../shared/pixhook-error.js';
import type { Dispute, DisputeWithAge, DuplicateHold, RecordContext, RecordResult } from './payment-book.js';

// What every backend of the payment book checks and builds the same way, so the three agree.

/** `dismiss`'s note: a string, bounded (it is stored with the held event). */
export function checkNote(note: unknown): asserts note is string {
  if (typeof note !== 'string' || note.length > 2000) {
    throw new PixhookError('validation_failed', 'pixhook: `note` must be a string of at most 2000 characters.');
  }
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
