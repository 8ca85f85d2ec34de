import type { ApiPixEvent, PspTransactionEvent } from '../../events/event-types.js';
import type { EssentialFailure } from '../../events/read-essentials.js';
import type { ReceiveRequest } from '../../intake/create-receiver.js';
import type { JournalRecord } from '../../journal/journal-writer.js';
import type { AcceptResult } from '../../processing/create-processing.js';
import type { ApiPixCallback } from './read-batch.js';

/** One item's outcome inside a call (an API Pix call's, or a PSP delivery's: `pixhook/psp` reuses `batchAnswer`). */
export interface ItemOutcome {
  event: ApiPixEvent | PspTransactionEvent;
  accepted: AcceptResult;
}

/** One call between the pipeline's steps. */
export class Call {
  bytes: Uint8Array = new Uint8Array(0);
  body: string | undefined = undefined;
  json: unknown = undefined;
  readonly events: ApiPixEvent[] = [];
  readonly failures: EssentialFailure[] = [];
  readonly outcomes: ItemOutcome[] = [];
  verified = false;
  callback: ApiPixCallback | undefined = undefined;
  readonly startedAt = performance.now();
  readonly arrivedAt = Date.now();
  constructor(
    readonly journal: JournalRecord | undefined,
    readonly request: ReceiveRequest,
  ) {}
}
