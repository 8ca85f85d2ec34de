import type { ReleaseResult, ReleaseTrail } from '../book/payment-book.js';
import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import type { EventName } from '../events/event-names.js';
import type { PixEvent, PixEventOf, UnknownEvent } from '../events/event-types.js';
import type { ProcessingMetrics } from '../metrics/receiver-metrics.js';
import type { ProcessingReason } from '../shared/reasons.js';
import type { ErrorHandler, EventHandler, ViolationHandler } from './handler-registry.js';
import type { AckMode, QueuedEvent } from './processing-options.js';

/** One run of a queued job, as the durable worker hands it over. */
export interface QueuedRun {
  attempt: number;
  final: boolean;
}

/** What processing did with an event. No `reason`: handled (inline) or accepted (background, durable). */
export interface AcceptResult {
  reason?: ProcessingReason;
  key?: string;
  /** Private diagnosis for logs (never sent to the gateway). */
  hint?: string;
}

export interface AcceptOptions {
  /** Keeps background work alive after the answer (a Worker's `ctx.waitUntil`); overrides the option. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** The verified body as received; durable mode queues it. Default: the event's payload as JSON. */
  body?: string;
  /** Trace context to carry into a durable job. */
  trace?: Record<string, string>;
  /**
   * Marks a replay (of a quarantined body, a dead letter…): with a `journal`, the run is recorded as a
   * delivery of its own whose `replayOf` is this (e.g. the quarantine id). It goes through dedupe as usual.
   */
  replayOf?: string;
}

/**
 * The handlers and what runs them: dedupe claim, dispatch, acknowledgement mode, retries, time
 * limits and error reporting. No secret and no HTTP: the receiver, the durable worker, replays and
 * the reconciler all hand events to one `Processing`.
 */
export interface Processing {
  readonly mode: AckMode;
  /** The store's quarantine (Redis and Postgres stores have one): a receiver sharing this processing keeps invalid bodies there. */
  readonly quarantine?: QuarantineStore;
  /** True when work after the answer is kept alive by a `waitUntil` option. */
  readonly hasWaitUntil?: boolean;
  on<N extends EventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): Processing;
  onAny(handler: EventHandler<PixEvent>): Processing;
  onUnknown(handler: EventHandler<UnknownEvent>): Processing;
  onError(handler: ErrorHandler): Processing;
  /** Hears every violation the payment book finds, held or flagged, with the event (needs a `book`). */
  onViolation(handler: ViolationHandler): Processing;
  /**
   * Runs a held event's handlers once, when a person decided it is right (`book.held()` lists them): exactly
   * once across every processing sharing the book. A failing handler leaves it held (`handler_failed`).
   */
  release(heldId: string, trail?: ReleaseTrail): Promise<ReleaseResult>;
  /**
   * With `disputeAlertMs`: scans the book's open disputes now (it also runs every minute) and tells
   * `onViolation` (`dispute_deadline`) about each one that reached the alert age and was not told yet in
   * this process. Resolves how many it told; 0 without `disputeAlertMs`. Never rejects.
   */
  checkDisputes(): Promise<number>;
  /** Claims the event's dedupe key, then dispatches it as the mode says. Never rejects. */
  accept(event: PixEvent | UnknownEvent, options?: AcceptOptions): Promise<AcceptResult>;
  /** `accept`, answering synchronously when the store and the handlers did (the receiver's fast path). Never throws. */
  acceptNow(event: PixEvent | UnknownEvent, options?: AcceptOptions): AcceptResult | Promise<AcceptResult>;
  /** Runs one durably queued job's handlers (the durable worker calls this). Rejects when they fail, so the queue retries. */
  runQueued(job: QueuedEvent, run: QueuedRun): Promise<void>;
  /**
   * Resolves `true` when every accepted run has settled (inline runs still going count too), or `false`
   * after `timeoutMs` (default: the longest a run can take: attempts × handlerTimeoutMs plus backoff, or
   * handlerTimeoutMs for inline).
   */
  drain(options?: { timeoutMs?: number }): Promise<boolean>;
  /**
   * Ends this processing: drains (bounded by `timeoutMs`, default as `drain`), stops its timers (dispute
   * alerts) and flushes the journal. Resolves what the drain resolved. Calling it again returns the
   * same promise. Events accepted after it are still run; stop the server first.
   */
  close(options?: { timeoutMs?: number }): Promise<boolean>;
  metrics(): ProcessingMetrics;
  /** Handlers registered for known events (`on`, `onAny`); a durable worker with none is refused. */
  handlerCount(): number;
}
