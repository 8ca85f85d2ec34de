import type { DeliveryJournal, JournalEntry, JournalQuery } from '../journal/delivery-journal.js';
import { safeJson } from './escape-html.js';

const encoder = new TextEncoder();
const heartbeatMs = 15_000;

function matches(entry: JournalEntry, query: JournalQuery): boolean {
  return (
    (query.event === undefined || entry.event === query.event) &&
    (query.status === undefined || entry.status === query.status) &&
    (query.reason === undefined || entry.reason === query.reason) &&
    (query.resource === undefined || entry.resourceId === query.resource)
  );
}

/** What a live row needs: never the body (it can be large, and the list does not show it). */
function rowOf(entry: JournalEntry): Omit<JournalEntry, 'body' | 'signature'> {
  const { body: _body, signature: _signature, ...row } = entry;
  return row;
}

/**
 * Server-sent events of the journal's new and updated entries that match the page's filters, one
 * `delivery` event each (JSON with U+2028/U+2029 escaped). Ends when the browser goes away.
 */
export function liveDeliveries(journal: DeliveryJournal, query: JournalQuery, report: (error: unknown) => void): Response {
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      send('retry: 2000\n\n');
      let unsubscribe: () => void = () => {};
      try {
        unsubscribe = journal.subscribe((entry) => {
          if (matches(entry, query)) send(`event: delivery\ndata: ${safeJson(rowOf(entry))}\n\n`);
        });
      } catch (error) {
        report(error);
      }
      const timer = setInterval(() => send(': keep-alive\n\n'), heartbeatMs);
      timer.unref?.();
      stop = () => {
        clearInterval(timer);
        try {
          unsubscribe();
        } catch (error) {
          report(error);
        }
        stop = () => {};
      };
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}
