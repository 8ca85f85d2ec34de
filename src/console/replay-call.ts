import type { ApiPixEvent, Processing, PspTransactionEvent } from '../index.js';
import type { JournalConfirmed, JournalEntry, JournalItem } from '../journal/delivery-journal.js';
import { journalItem } from '../journal/entries.js';
import { reasonStatus, type ReasonCode } from '../shared/reasons.js';
import type { SourceReader } from '../sources/readers.js';

type ItemEvent = ApiPixEvent | PspTransactionEvent;

/**
 * A journaled call (API Pix, a PSP) replayed: its body read with its source's reader, and each event the call handed to
 * processing (its journaled `items`; an item refused at intake, such as a Pix to another key without a book, stays
 * refused) goes through the door again, in order: the finished ones answer `duplicate`, the unfinished ones run.
 * One entry for the replay, as for the call: the worst item decides its answer; a call whose items were all
 * done already is a `duplicate` (the live call's answer stays a plain 200, per the API Pix contract).
 */
export async function replayCall(input: {
  /** The reader of the source that journaled the call (`readerOf(entry)`). */
  reader: SourceReader;
  profile: NonNullable<JournalEntry['profile']>;
  value: unknown;
  text: string;
  processing: Processing;
  items: readonly JournalItem[] | undefined;
  /** The records the source's API answered when the call came (`entry.confirmed`): read instead of the hint body. */
  confirmed?: readonly JournalConfirmed[] | undefined;
  base: Omit<JournalEntry, 'status'>;
}): Promise<JournalEntry> {
  const { reader, profile, value, text, processing, items, confirmed, base } = input;
  const events =
    confirmed !== undefined && reader.confirmed !== undefined
      ? confirmedEvents(reader, confirmed, value)
      : (reader.readBody(value, 'replay') as ItemEvent[] | undefined);
  // A fetched source's entry from before its confirmed state was journaled: an id, with no state to replay.
  const refusal = events === undefined && reader.confirmed !== undefined ? 'confirmation_not_journaled' : 'payload_invalid';
  if (events === undefined) return { ...base, status: reasonStatus[refusal], reason: refusal, body: text, profile };
  const left = [...(items ?? [])];
  const outcomes: { event: ItemEvent; accepted: { key?: string; reason?: ReasonCode } }[] = [];
  for (const event of events) {
    if (items !== undefined && !takeMatching(left, event)) continue;
    const result = await processing.accept(event);
    outcomes.push({
      event,
      accepted: { ...(result.key !== undefined && { key: result.key }), ...(result.reason !== undefined && { reason: result.reason }) },
    });
  }
  const worst = outcomes.find((outcome) => outcome.accepted.reason !== undefined && reasonStatus[outcome.accepted.reason] >= 300);
  const reason = worst?.accepted.reason ?? (outcomes.length === 1 || allDuplicate(outcomes) ? outcomes[0]!.accepted.reason : undefined);
  const first = outcomes[0];
  return {
    ...base,
    status: reason === undefined ? 200 : reasonStatus[reason],
    ...(reason !== undefined && { reason }),
    ...(first !== undefined && {
      event: first.event.name,
      resourceId: first.event.transaction.id,
      amountInCents: first.event.transaction.amountInCents,
      ...(first.accepted.key !== undefined && { key: first.accepted.key }),
    }),
    items: outcomes.map(journalItem),
    body: text,
    profile,
    ...(confirmed !== undefined && { confirmed: [...confirmed] }),
  };
}

/** Every item (at least one) answered `duplicate`: nothing ran, so the replay is one, not `handled`. */
function allDuplicate(outcomes: readonly { accepted: { reason?: ReasonCode } }[]): boolean {
  return outcomes.length > 0 && outcomes.every((outcome) => outcome.accepted.reason === 'duplicate');
}

/**
 * The events the handlers saw, read again from the journaled records (no credentials, no network: what was
 * applied is what a replay re-runs); undefined when a record no longer reads (the entry was altered).
 */
function confirmedEvents(reader: SourceReader, confirmed: readonly JournalConfirmed[], value: unknown): ItemEvent[] | undefined {
  const events: ItemEvent[] = [];
  for (const { record, deliveryId } of confirmed) {
    const event = reader.confirmed!(record, value, deliveryId, 'replay');
    if (event === undefined) return undefined;
    events.push(event as ItemEvent);
  }
  return events;
}

/** Takes the journaled item this event is (same event, Pix, charge and amount) out of `left`; false when none is. */
function takeMatching(left: JournalItem[], event: ItemEvent): boolean {
  const own = journalItem({ event, accepted: {} });
  const at = left.findIndex(
    (item) =>
      item.event === own.event &&
      item.endToEndId === own.endToEndId &&
      item.txid === own.txid &&
      item.amountInCents === own.amountInCents &&
      item.pixKey === own.pixKey,
  );
  if (at === -1) return false;
  left.splice(at, 1);
  return true;
}
