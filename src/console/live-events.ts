import type { DeliveryJournal, JournalEntry, JournalQuery } from '../journal/delivery-journal.js';
import { refusal } from './console-responses.js';
import { safeJson } from './escape-html.js';

const encoder = new TextEncoder();
const heartbeatMs = 15_000;
/** Live streams open at once per console; past it `/live` answers 503 (the page then polls on reload). */
export const maxLiveStreams = 32;

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

interface Stream {
  query: JournalQuery;
  send: (bytes: Uint8Array) => void;
}

/**
 * The console's live streams: one journal subscription for all of them, each write
 * serialized once (when any stream wants it) and the same bytes handed to every matching stream, and
 * at most `maxLiveStreams` open: with 200 streams each serializing every write, the receiver's acks slowed tenfold.
 */
export class LiveHub {
  readonly #journal: DeliveryJournal;
  readonly #report: (error: unknown) => void;
  readonly #streams = new Set<Stream>();
  #unsubscribe: (() => void) | undefined;

  constructor(journal: DeliveryJournal, report: (error: unknown) => void) {
    this.#journal = journal;
    this.#report = report;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** Server-sent events of the entries matching `query`, one `delivery` event each; 503 past the cap. */
  open(query: JournalQuery, wantsJson: boolean): Response {
    if (this.#streams.size >= maxLiveStreams)
      return withRetryAfter(
        refusal(503, 'too_many_live_streams', `At most ${maxLiveStreams} live streams are open at once; reload later.`, wantsJson),
      );
    let stream: Stream | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    const close = () => {
      clearInterval(timer);
      if (stream !== undefined && this.#streams.delete(stream)) this.#release();
      stream = undefined;
    };
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (bytes: Uint8Array) => {
          try {
            controller.enqueue(bytes);
          } catch {
            close();
          }
        };
        stream = { query, send };
        this.#streams.add(stream);
        send(encoder.encode('retry: 2000\n\n'));
        this.#listen();
        timer = setInterval(() => send(encoder.encode(': keep-alive\n\n')), heartbeatMs);
        (timer as { unref?: () => void }).unref?.();
      },
      cancel: close,
    });
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    });
  }

  #listen(): void {
    if (this.#unsubscribe !== undefined) return;
    try {
      this.#unsubscribe = this.#journal.subscribe((entry) => this.#publish(entry));
    } catch (error) {
      this.#report(error);
    }
  }

  #publish(entry: JournalEntry): void {
    let bytes: Uint8Array | undefined;
    for (const stream of [...this.#streams]) {
      if (!matches(entry, stream.query)) continue;
      bytes ??= encoder.encode(`event: delivery\ndata: ${safeJson(rowOf(entry))}\n\n`);
      stream.send(bytes);
    }
  }

  /** The last stream gone: the journal subscription goes too. */
  #release(): void {
    if (this.#streams.size > 0 || this.#unsubscribe === undefined) return;
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    try {
      unsubscribe();
    } catch (error) {
      this.#report(error);
    }
  }
}

function withRetryAfter(response: Response): Response {
  response.headers.set('retry-after', '30');
  return response;
}
