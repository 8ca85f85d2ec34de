import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { JournalRecord, JournalWriter } from '../journal/journal-writer.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { ReceiverHealth } from './health-checks.js';
import type { AcceptOptions, AcceptResult, Processing } from './processing.js';

/**
 * One delivery as processing sees it, beside its event: what the receiver (or a replay, or a caller of
 * `accept`) hands over. Internal: the public `AcceptOptions` becomes one with `contextOf`.
 */
export interface DeliveryContext {
  /** The verified body as received; durable mode queues it. Undefined: the event's payload as JSON. */
  readonly body: string | undefined;
  /** Keeps work after the answer alive (a Worker's `ctx.waitUntil`); overrides the processing's option. */
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  /** The delivery's trace context; undefined: the one current when processing takes it. */
  readonly trace: Record<string, string> | undefined;
  /** Set on a replay (the console's, the CLI's, a dead letter's): the journal entry's `replayOf`. */
  readonly replayOf: string | undefined;
  /** The delivery's journal record (with a `journal`): handler runs are appended to it. */
  readonly journal: JournalRecord | undefined;
}

/** The processing a receiver drives: `Processing` plus the two things only the receiver uses. */
export interface DeliveryProcessing extends Processing {
  /** The journal's writer (with a `journal`): the receiver writes its deliveries through it, so a delivery and its handler runs share one queue. */
  readonly journalWriter: JournalWriter | undefined;
  /** `acceptNow` for a delivery the receiver already opened in the journal. Never throws. */
  acceptDelivery(event: PixEvent | UnknownEvent, context: DeliveryContext): MaybePromise<AcceptResult>;
  /** True with a payment `book`: what the book would hold may be handed over (an API Pix to another key). */
  readonly hasBook: boolean;
  /** One check for each of its store, book, journal and queue (see `checkHealth`). Never rejects. */
  health(): Promise<ReceiverHealth>;
}

/** The context of a caller's `accept(event, options)`: no journal record yet. */
export function contextOf(options: AcceptOptions): DeliveryContext {
  return { body: options.body, waitUntil: options.waitUntil, trace: options.trace, replayOf: options.replayOf, journal: undefined };
}

/**
 * `processing` as the receiver drives it. One `createProcessing` made is one already; any other object
 * with the `Processing` methods is driven through `acceptNow` and journals nothing.
 */
export function deliveryProcessingOf(
  processing: Processing,
): Pick<DeliveryProcessing, 'journalWriter' | 'acceptDelivery' | 'hasBook' | 'health'> {
  if (isDeliveryProcessing(processing)) return processing;
  // Another object's book is not known: what a book would hold is refused at intake instead.
  return {
    journalWriter: undefined,
    hasBook: false,
    // Its backends are not known: nothing to check.
    health: () => Promise.resolve({ ok: true, checks: {} }),
    acceptDelivery: (event, context) =>
      processing.acceptNow(event, {
        ...(context.body !== undefined && { body: context.body }),
        ...(context.waitUntil !== undefined && { waitUntil: context.waitUntil }),
        ...(context.trace !== undefined && { trace: context.trace }),
      }),
  };
}

function isDeliveryProcessing(processing: Processing): processing is DeliveryProcessing {
  return typeof (processing as Partial<DeliveryProcessing>).acceptDelivery === 'function';
}
