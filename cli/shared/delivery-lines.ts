import { internalsOf, withReceive } from '../../src/adapter-kit/index.js';
import type { DeliveryJournal, JournalEntry, Receiver, ReceiveRequest, ReceiveResult } from '../../src/index.js';
import { jsonText } from './json-text.js';
import { apiPixRefusalHint, refusalHint } from './refusal-hint.js';

/** One delivery and its answer, as `dev`, `listen` and `trigger` print it. */
export interface DeliveryAnswer {
  /** What was delivered: one `{ event, id, amountInCents }` per event (an API Pix call may carry several). */
  events: { event?: string; id?: string; amountInCents?: number; reason?: string }[];
  /** Size of the body, shown when the delivery could not be read (unverified). */
  bodyBytes?: number;
  status: number;
  reason?: string;
  ms?: number;
  /** A replay or a "Run again", not the sender's own delivery. */
  replay?: boolean;
}

// A name or an id as it is when it is plain; JSON-escaped otherwise (it is the sender's: it cannot forge a line).
const plain = (text: string) => (/^[\w.:@/+-]{1,200}$/.test(text) ? text : jsonText(text));

/**
 * `--> transaction_paid txn_1 1990` per event delivered, then `<-- 200 handled 3 ms`: the answer's status,
 * its reason (`handled` for a 2xx without one) and how long the handlers (or your app) took.
 */
export function deliveryLines(answer: DeliveryAnswer): string[] {
  const tag = answer.replay === true ? ' (replay)' : '';
  const sent =
    answer.events.length === 0
      ? [`--> a delivery pixhook could not read${answer.bodyBytes === undefined ? '' : ` (${answer.bodyBytes} bytes)`}${tag}`]
      : answer.events.map(
          (e) =>
            `--> ${[e.event ?? 'unknown', e.id, e.amountInCents]
              .filter((part) => part !== undefined)
              .map((part) => plain(String(part)))
              .join(' ')}${e.reason === undefined ? '' : ` (${plain(e.reason)})`}${tag}`,
        );
  const reason = answer.reason ?? (answer.status < 300 ? 'handled' : undefined);
  const ms = answer.ms === undefined ? '' : ` ${answer.ms < 10 ? answer.ms.toFixed(1) : Math.round(answer.ms)} ms`;
  return [...sent, `<-- ${answer.status}${reason === undefined ? '' : ` ${plain(reason)}`}${ms}`];
}

/** A journal entry as a delivery and its answer (the handlers' time: their runs summed). */
export function answerOfEntry(entry: JournalEntry): DeliveryAnswer {
  const events =
    entry.items !== undefined && entry.items.length > 0
      ? entry.items.map((item) => ({
          event: item.event,
          ...((item.txid ?? item.endToEndId) !== undefined && { id: item.txid ?? item.endToEndId }),
          ...(item.amountInCents !== undefined && { amountInCents: item.amountInCents }),
          // Each item's own answer when the call carries several: the Pix a refund's call repeats is a duplicate.
          ...(entry.items!.length > 1 && item.reason !== undefined && { reason: item.reason }),
        }))
      : entry.event === undefined
        ? []
        : [
            {
              event: entry.event,
              ...(entry.resourceId !== undefined && { id: entry.resourceId }),
              ...(entry.amountInCents !== undefined && { amountInCents: entry.amountInCents }),
            },
          ];
  const ms = entry.attempts.length === 0 ? undefined : entry.attempts.reduce((sum, a) => sum + a.durationMs, 0);
  return {
    events,
    bodyBytes: entry.bodyBytes,
    status: entry.status,
    ...(entry.reason !== undefined && { reason: entry.reason }),
    ...(ms !== undefined && { ms }),
    ...(entry.replayOf !== undefined && { replay: true }),
  };
}

/** The hint after a refusal (401 or 403), for the profile that was refused. */
export function hintFor(status: number, shown: string, profile: 'gateway' | 'api-pix' = 'gateway'): string | undefined {
  if (status !== 401 && status !== 403) return undefined;
  return profile === 'api-pix' ? apiPixRefusalHint(status, shown) : refusalHint(status, shown);
}

/**
 * Prints each delivery the journal records, once (the journal also tells of appended runs), and the
 * refusal hint after the first 401 or 403 (a sender retrying with a wrong secret would repeat it). Returns the unsubscribe.
 */
export function printJournalDeliveries(
  journal: DeliveryJournal,
  write: (text: string) => void,
  shown: () => string,
  profile: 'gateway' | 'api-pix' = 'gateway',
): () => void {
  const seen = new Set<string>();
  let hinted = false;
  return journal.subscribe((entry) => {
    if (seen.has(entry.id)) return;
    seen.add(entry.id);
    // Bounded: the oldest ids go first (a Set iterates in insertion order).
    if (seen.size > 10_000) seen.delete(seen.values().next().value!);
    const hint = hinted ? undefined : hintFor(entry.status, shown(), profile);
    if (hint !== undefined) hinted = true;
    write(`${[...deliveryLines(answerOfEntry(entry)), ...(hint === undefined ? [] : [hint])].join('\n')}\n`);
  });
}

/** A receive result as a delivery and its answer. */
function answerOfResult(result: ReceiveResult, ms: number): DeliveryAnswer {
  const event = result.event;
  const resource =
    event === undefined || event.kind === 'unknown' ? undefined : event.kind === 'transaction' ? event.transaction : event.transfer;
  return {
    events:
      event === undefined
        ? []
        : [{ event: event.name, ...(resource !== undefined && { id: resource.id, amountInCents: resource.amountInCents }) }],
    status: result.status,
    ...(result.reason !== undefined && { reason: result.reason }),
    ms,
  };
}

/**
 * `pixhook listen`: the same receiver, printing each delivery and its answer (the time is the whole
 * answer's: reading, verifying and, inline, the handlers), and the refusal hint after the first 401 or 403.
 */
export function withDeliveryLines(
  receiver: Receiver,
  write: (text: string) => void,
  shown: () => string,
  profile: 'gateway' | 'api-pix' = 'gateway',
): Receiver {
  const internals = internalsOf(receiver);
  let hinted = false;
  return withReceive(receiver, async (request: ReceiveRequest) => {
    const started = performance.now();
    const result = await internals.handle(request);
    const hint = hinted ? undefined : hintFor(result.status, shown(), profile);
    if (hint !== undefined) hinted = true;
    write(`${[...deliveryLines(answerOfResult(result, performance.now() - started)), ...(hint === undefined ? [] : [hint])].join('\n')}\n`);
    return result;
  });
}
