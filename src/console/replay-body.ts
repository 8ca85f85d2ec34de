import { normalizeEvent, type Processing } from '../index.js';
import type { DeliveryJournal, JournalAttempt, JournalEntry } from '../journal/delivery-journal.js';
import { reasonStatus, type ReasonCode } from '../shared/reasons.js';
import { journalId } from '../journal/journal-id.js';
import { readerOf } from '../sources/readers.js';
import { replayCall } from './replay-call.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A replay from the console: the body is read again (with this version's reader), marked as a replay
 * (`source: 'replay'`, `replayOf`), and handed to the receiver's processing, so its dedupe decides:
 * the first replay of an unhandled event runs the handlers once, any later one is a `duplicate`.
 * The processing journals it when its receiver has this journal; otherwise the console writes the entry.
 */
export async function replayBody(input: {
  bytes: Uint8Array;
  processing: Processing;
  journal: DeliveryJournal;
  replayOf: string;
  /** The journaled delivery replayed: its `profile` names the reader its body needs (an API Pix call's items run one by one). */
  entry?: Pick<JournalEntry, 'profile' | 'items' | 'confirmed'>;
}): Promise<JournalEntry> {
  const { bytes, processing, journal, replayOf, entry } = input;
  const at = new Date().toISOString();
  const base = { id: journalId(), at, channel: 'replay' as const, verified: true, replayOf, bodyBytes: bytes.byteLength, attempts: [] };
  let text: string;
  let value: unknown;
  try {
    text = decoder.decode(bytes);
    value = JSON.parse(text);
  } catch {
    return record(journal, { ...base, status: reasonStatus.json_invalid, reason: 'json_invalid' });
  }
  // The reader of the source that journaled it (its `profile`), through the sources' registry.
  const reader = entry === undefined ? undefined : readerOf(entry);
  if (entry !== undefined && reader !== undefined && !reader.single)
    return record(
      journal,
      await replayCall({
        reader,
        profile: entry.profile ?? 'api-pix',
        value,
        text,
        processing,
        items: entry.items,
        confirmed: entry.confirmed,
        base,
      }),
    );
  const normalized = normalizeEvent(value, { source: 'replay' });
  if (!normalized.ok) return record(journal, { ...base, status: reasonStatus.payload_invalid, reason: 'payload_invalid', body: text });
  const event = normalized.event;
  // A receiver made with this journal records the replay itself (with its handler run): listen for it.
  const heard = entryMarked(journal, replayOf);
  const startedAt = performance.now();
  const result = await processing.accept(event, { body: text, replayOf });
  const durationMs = performance.now() - startedAt;
  const own = await heard.entry;
  if (own !== undefined) return own;
  const reason: ReasonCode | undefined = result.reason;
  const attempts: JournalAttempt[] = [];
  // Inline, the handlers ran inside accept: one run, ok or failed (background and durable runs report themselves).
  if (processing.mode === 'inline' && (reason === undefined || reason === 'handler_failed' || reason === 'handler_timeout'))
    attempts.push({
      attempt: 1,
      at,
      durationMs,
      outcome: reason === undefined ? 'ok' : reason === 'handler_failed' ? 'failed' : 'timed_out',
    });
  const resource = event.kind === 'transaction' ? event.transaction : event.kind === 'transfer' ? event.transfer : undefined;
  return record(journal, {
    ...base,
    status: reason === undefined ? 200 : reasonStatus[reason],
    ...(reason !== undefined && { reason }),
    event: event.name,
    ...(result.key !== undefined && { key: result.key }),
    ...(resource !== undefined && { resourceId: resource.id, amountInCents: resource.amountInCents }),
    ...(event.deliveryId !== undefined && { deliveryId: event.deliveryId }),
    body: text,
    attempts,
  });
}

const heardWithinMs = 1_000;

/** The first entry written with this `replayOf` from now on, or undefined within a second (another journal, or none). */
function entryMarked(journal: DeliveryJournal, replayOf: string): { entry: Promise<JournalEntry | undefined> } {
  let stop: () => void = () => {};
  const entry = new Promise<JournalEntry | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), heardWithinMs);
    try {
      stop = journal.subscribe((written) => {
        if (written.replayOf !== replayOf) return;
        clearTimeout(timer);
        resolve(written);
      });
    } catch {
      clearTimeout(timer);
      resolve(undefined);
    }
  }).finally(() => stop());
  return { entry };
}

async function record(journal: DeliveryJournal, entry: JournalEntry): Promise<JournalEntry> {
  await journal.add(entry);
  return entry;
}
