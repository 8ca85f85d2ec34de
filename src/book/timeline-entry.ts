import { apiPixEventNames, pixEventNames } from '../events/event-names.js';
import { isoTime } from '../shared/iso-time.js';
import type { BookChannel } from '../events/book-channel.js';
import type { PixEvent } from '../events/event-types.js';
import type { TimelineEntry, TimelineOutcome } from './payment-book.js';
import type { Violation } from '../events/violation.js';

// A resource's timeline: its entries as every backend keeps them (plain JSON), made with as few objects as can be.

// A kept entry names its event with the one constant string of that name, not the payload's copy of it.
const knownNames: ReadonlyMap<string, TimelineEntry['name']> = new Map([...pixEventNames, ...apiPixEventNames].map((name) => [name, name]));

/** What an entry tells of its delivery (book-state.ts `RecordInput` is one). */
interface EntryInput {
  event: PixEvent;
  channel: BookChannel;
  deliveryId: string | undefined;
  at: number;
}

/** The timeline entry of the delivery `input` describes. */
export function timelineEntry(
  input: EntryInput,
  outcome: TimelineOutcome,
  reasons: TimelineEntry['reasons'],
  heldId?: string,
): TimelineEntry {
  const { event } = input;
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;
  // A delivery id equal to the resource's id (a gateway's postback) is kept as that one string, not a second copy.
  const deliveryId = input.deliveryId === current.id ? current.id : input.deliveryId;
  const name = knownNames.get(event.name) ?? event.name;
  const { status, amountInCents } = current;
  const at = isoTime(input.at);
  // Whole literals: a field added afterwards would give every kept entry a second object to hold it.
  const made: TimelineEntry =
    deliveryId === undefined
      ? { name, status, amountInCents, channel: input.channel, at, outcome, reasons }
      : { name, status, amountInCents, channel: input.channel, at, outcome, reasons, deliveryId };
  if (heldId !== undefined) made.heldId = heldId;
  return made;
}

// A timeline entry without violations (most of them) shares one empty, frozen list of reasons; nothing changes one in place.
const noReasons = Object.freeze([]) as unknown as TimelineEntry['reasons'];

export function reasonsOf(violations: readonly Violation[]): TimelineEntry['reasons'] {
  return violations.length === 0 ? noReasons : violations.map((violation) => violation.reason);
}

/** The timeline with `entry` added, the oldest entries dropped beyond `max`. */
export function appended(timeline: readonly TimelineEntry[], entry: TimelineEntry, max: number): TimelineEntry[] {
  if (timeline.length === 0) return [entry];
  const start = Math.max(0, timeline.length + 1 - max);
  const next = timeline.slice(start);
  next.push(entry);
  return next;
}
