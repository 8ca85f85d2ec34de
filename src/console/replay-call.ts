import { readPixItem, recurrenceEvent, recurringChargeEvent, type ApiPixEvent } from '../api-pix/index.js';
import { readBatch } from '../api-pix/receiver/read-batch.js';
import type { Processing } from '../index.js';
import type { JournalEntry, JournalItem } from '../journal/delivery-journal.js';
import { journalItem } from '../journal/entries.js';
import { reasonStatus, type ReasonCode } from '../shared/reasons.js';

/** Whether a journaled delivery is a standard API Pix call (its `profile`; entries written before it had `items`). */
export function isApiPixEntry(entry: Pick<JournalEntry, 'profile' | 'items'>): boolean {
  return entry.profile === 'api-pix' || (entry.profile === undefined && entry.items !== undefined);
}

/**
 * A journaled API Pix call replayed: its body read with the API Pix reader, and each event the call handed to
 * processing (its journaled `items`; an item refused at intake, such as a Pix to another key without a book, stays
 * refused) goes through the door again, in order: the finished ones answer `duplicate`, the unfinished ones run.
 * One entry for the replay, as for the call: the worst item decides its answer.
 */
export async function replayCall(input: {
  value: unknown;
  text: string;
  processing: Processing;
  items: readonly JournalItem[] | undefined;
  base: Omit<JournalEntry, 'status'>;
}): Promise<JournalEntry> {
  const { value, text, processing, items, base } = input;
  const batch = readBatch(value, undefined);
  if (!batch.ok) return { ...base, status: reasonStatus.payload_invalid, reason: 'payload_invalid', body: text, profile: 'api-pix' };
  const left = [...(items ?? [])];
  const outcomes: { event: ApiPixEvent; accepted: { key?: string; reason?: ReasonCode } }[] = [];
  for (let i = 0; i < batch.items.length; i++) {
    const at = batch.base === '' ? String(i) : `${batch.base}.${String(i)}`;
    for (const event of readItem(batch.callback, batch.items[i], at)) {
      if (items !== undefined && !takeMatching(left, event)) continue;
      const result = await processing.accept(event);
      outcomes.push({
        event,
        accepted: { ...(result.key !== undefined && { key: result.key }), ...(result.reason !== undefined && { reason: result.reason }) },
      });
    }
  }
  const worst = outcomes.find((outcome) => outcome.accepted.reason !== undefined && reasonStatus[outcome.accepted.reason] >= 300);
  const reason = worst?.accepted.reason ?? (outcomes.length === 1 ? outcomes[0]!.accepted.reason : undefined);
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
    profile: 'api-pix',
  };
}

function readItem(callback: 'pix' | 'rec' | 'cobr', item: unknown, at: string): ApiPixEvent[] {
  if (callback === 'pix') return readPixItem(item, at, 'replay').events;
  const read = callback === 'rec' ? recurrenceEvent(item, at, 'replay') : recurringChargeEvent(item, at, 'replay');
  return read.ok ? [read.event] : [];
}

/** Takes the journaled item this event is (same event, Pix, charge and amount) out of `left`; false when none is. */
function takeMatching(left: JournalItem[], event: ApiPixEvent): boolean {
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
