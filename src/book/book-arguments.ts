import { channelOf } from '../events/book-channel.js';
import type { PixEvent } from '../events/event-types.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { RecordInput } from './book-state.js';
import type { Dispute, DisputeWithAge, DuplicateHold, RecordContext, RecordResult, ReleaseTrail } from './payment-book.js';
import { defaultPolicy } from './payment-policy.js';

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

/** When a delivery is recorded: the context's `at` when it is a finite number, else the book's clock now. */
export function recordAt(context: RecordContext, now: () => number): number {
  return typeof context.at === 'number' && Number.isFinite(context.at) ? context.at : now();
}

/** What a backend read of the resource and its holds; the rest of a `RecordInput` comes from the delivery. */
type StoredSide = Pick<RecordInput, 'resource' | 'expectationsInUse' | 'openHeld' | 'newHeldId' | 'maxTimeline'>;

/** A delivery's `RecordInput`, every default of its context resolved as on every other backend. */
export function recordInput(event: PixEvent, context: RecordContext, at: number, stored: StoredSide): RecordInput {
  return {
    resource: stored.resource,
    event,
    dedupeKey: context.dedupeKey,
    channel: context.channel ?? channelOf(event),
    deliveryId: context.deliveryId ?? event.deliveryId,
    at,
    policy: context.policy ?? defaultPolicy,
    confirmed: context.confirmed,
    expectationsInUse: stored.expectationsInUse,
    openHeld: stored.openHeld,
    newHeldId: stored.newHeldId,
    maxTimeline: stored.maxTimeline,
  };
}
