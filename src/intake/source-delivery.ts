import type { ApiPixEvent, PixEvent, PspTransactionEvent, UnknownEvent } from '../events/event-types.js';
import type { JournaledDelivery } from '../journal/entries.js';
import type { JournalRecord, JournalWriter } from '../journal/journal-writer.js';
import type { JournalConfirmed } from '../journal/delivery-journal.js';
import type { AcceptResult } from '../processing/create-processing.js';
import type { DeliveryContext } from '../processing/delivery-context.js';
import type { PeerConnection } from '../shared/peer-connection.js';
import type { BodyCheck, ReadFailure, RequestHead } from '../sources/source.js';
import type { ReceiveRequest } from './receiver-types.js';

/** One event's outcome inside a delivery of items (an API Pix call, a PSP delivery): `batchAnswer` reads them. */
export interface ItemOutcome {
  event: ApiPixEvent | PspTransactionEvent;
  accepted: AcceptResult;
}

/**
 * One delivery of a source between the pipeline's steps. It is also what the source sees of the request
 * (`RequestHead`), processing's context for its events (`DeliveryContext`) and what the journal keeps
 * (`JournaledDelivery`, `callEntry`): one object per request. The lists of a delivery of several events are
 * made when first used, so a delivery of one event (the common one) makes none.
 */
export class SourceDelivery implements RequestHead, DeliveryContext, JournaledDelivery {
  bytes: Uint8Array = empty;
  /** The authenticated body as text, once read as JSON (the journal keeps it). */
  text: string | undefined = undefined;
  /** For processing: the text when the delivery's one event is the whole body (durable mode queues it); else undefined, the event's payload. */
  body: string | undefined = undefined;
  json: unknown = undefined;
  /** The records the source's API answered for the body's hints (journaled: a replay reads them). */
  confirmed: JournalConfirmed[] | undefined = undefined;
  verified = false;
  /** The source's body check as an adapter fed it while reading (`ReceiverInternals.bodyCheck`). */
  check: BodyCheck | undefined = undefined;
  /** A delivery of one event: the event (an unknown one too, from a `single` source) and, once accepted, its outcome. */
  event: PixEvent | UnknownEvent | undefined = undefined;
  accepted: AcceptResult | undefined = undefined;
  readonly startedAt = performance.now();
  /** Date.now() on arrival, with a journal (the entry's `at`); 0 without. */
  readonly arrivedAt: number = 0;
  /** With a journal: the entry's record (processing appends each event's handler runs to it). */
  readonly journal: JournalRecord | undefined = undefined;
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  readonly replayOf: string | undefined;
  /** Taken by processing when it starts the run. */
  readonly trace: undefined = undefined;
  /** The lists of a delivery of several events, made together when first used. */
  #lists: Lists | undefined = undefined;

  constructor(
    readonly request: ReceiveRequest,
    writer: JournalWriter | undefined,
  ) {
    this.waitUntil = request.waitUntil;
    this.replayOf = request.replayOf;
    if (writer === undefined) return;
    this.arrivedAt = Date.now();
    this.journal = writer.open(this.arrivedAt);
  }

  get method(): string | undefined {
    return this.request.method;
  }
  get headers(): ReceiveRequest['headers'] {
    return this.request.headers;
  }
  get url(): string | undefined {
    return this.request.url;
  }
  get peer(): PeerConnection | undefined {
    return this.request.peer;
  }

  /** The events of a delivery of several (or of hints), in order. */
  get events(): (ApiPixEvent | PspTransactionEvent)[] {
    return this.#listed().events;
  }
  get failures(): ReadFailure[] {
    return this.#listed().failures;
  }
  /** Each accepted event's outcome, in order (a delivery of one event: its one outcome, made when first read). */
  get outcomes(): ItemOutcome[] {
    return this.#listed().outcomes;
  }

  #listed(): Lists {
    if (this.#lists !== undefined) return this.#lists;
    const outcomes = this.accepted === undefined ? [] : [{ event: this.event as PspTransactionEvent, accepted: this.accepted }];
    return (this.#lists = { events: [], failures: [], outcomes });
  }
}

interface Lists {
  readonly events: (ApiPixEvent | PspTransactionEvent)[];
  readonly failures: ReadFailure[];
  readonly outcomes: ItemOutcome[];
}

const empty = new Uint8Array(0);
