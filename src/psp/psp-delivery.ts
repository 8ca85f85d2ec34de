import type { PspTransactionEvent } from '../events/event-types.js';
import type { ItemOutcome } from '../api-pix/receiver/api-pix-call.js';
import type { ReceiveRequest } from '../intake/receiver-types.js';
import type { JournalRecord } from '../journal/journal-writer.js';
import type { ReadFailure, RequestHead } from '../sources/source.js';

/** One PSP delivery between the pipeline's steps (what `callEntry` journals, as an API Pix call). */
export class PspDelivery {
  bytes: Uint8Array = new Uint8Array(0);
  body: string | undefined = undefined;
  json: unknown = undefined;
  readonly events: PspTransactionEvent[] = [];
  readonly failures: ReadFailure[] = [];
  readonly outcomes: ItemOutcome[] = [];
  verified = false;
  readonly startedAt = performance.now();
  readonly arrivedAt = Date.now();
  readonly head: RequestHead;
  constructor(
    readonly journal: JournalRecord | undefined,
    readonly request: ReceiveRequest,
  ) {
    this.head = { method: request.method, headers: request.headers, url: request.url };
  }
}
