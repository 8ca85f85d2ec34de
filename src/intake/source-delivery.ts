import type { ApiPixEvent, PspTransactionEvent } from '../events/event-types.js';
import type { JournalConfirmed } from '../journal/delivery-journal.js';
import type { JournalRecord } from '../journal/journal-writer.js';
import type { AcceptResult } from '../processing/create-processing.js';
import type { BodyCheck, ReadFailure, RequestHead } from '../sources/source.js';
import type { ReceiveRequest } from './receiver-types.js';

/** One event's outcome inside a delivery of items (an API Pix call, a PSP delivery): `batchAnswer` reads them. */
export interface ItemOutcome {
  event: ApiPixEvent | PspTransactionEvent;
  accepted: AcceptResult;
}

/** One delivery of a source between the pipeline's steps (what `callEntry` journals). A class: one is made per request. */
export class SourceDelivery {
  bytes: Uint8Array = empty;
  body: string | undefined = undefined;
  json: unknown = undefined;
  readonly events: (ApiPixEvent | PspTransactionEvent)[] = [];
  readonly failures: ReadFailure[] = [];
  readonly outcomes: ItemOutcome[] = [];
  /** The records the source's API answered for the body's hints (journaled: a replay reads them). */
  confirmed: JournalConfirmed[] | undefined = undefined;
  verified = false;
  /** The source's body check as an adapter fed it while reading (`ReceiverInternals.bodyCheck`). */
  check: BodyCheck | undefined = undefined;
  readonly startedAt = performance.now();
  readonly arrivedAt = Date.now();
  readonly head: RequestHead;
  constructor(
    readonly journal: JournalRecord | undefined,
    readonly request: ReceiveRequest,
  ) {
    this.head = { method: request.method, headers: request.headers, url: request.url, peer: request.peer };
  }
}

const empty = new Uint8Array(0);
