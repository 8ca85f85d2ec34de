import type { ReleaseResult, ReleaseTrail } from '../book/payment-book.js';
import type { EventName } from '../events/event-names.js';
import type { PixEvent, PixEventOf, UnknownEvent } from '../events/event-types.js';
import type { ReceiverMetrics } from '../metrics/receiver-metrics.js';
import type { ReceiverHealth } from '../processing/health-checks.js';
import type { Processing } from '../processing/create-processing.js';
import type { ErrorHandler, EventHandler, ViolationHandler } from '../processing/handler-registry.js';
import type { AckMode } from '../processing/processing-options.js';
import type { HeaderSource } from '../shared/read-header.js';
import type { BodyFailureReason } from '../shared/reasons.js';
import type { PeerConnection } from './peer-connection.js';
import type { BodySource } from './read-body.js';
import type { ReceiveResult } from './receive-answer.js';
import type { InvalidHandler } from './receiver-options.js';

// The receiver's types, apart from createReceiver: the intake's helpers and the adapter kit read them
// without importing the pipeline.

export interface ReceiveRequest {
  /** Anything but POST answers 405. Omit when the framework already routed POST only. */
  method?: string;
  headers: HeaderSource;
  body: BodySource;
  /** Per-request `waitUntil` (e.g. a Worker's `ctx.waitUntil`); overrides the receiver's option. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * The sender's address as the framework gives it (the adapters fill it in; `X-Forwarded-For` is never
   * trusted here). Only the journal reads it.
   */
  remoteAddress?: string;
  /** Marks a replay (the console's, the CLI's): the journal entry's `replayOf`. Dedupe runs as usual. */
  replayOf?: string;
  /** The request target (path and query), when the receiver asks for it (`pixhook/api-pix`: the suffix, `urlSecret`). */
  url?: string;
  /** What the connection proves (socket address, TLS verdict), when the receiver asks for it (`pixhook/api-pix`). */
  peer?: PeerConnection;
}

/** A body's signature computed as its bytes arrive: fed by an adapter, judged by the receiver that made it. */
export interface ChunkCheck {
  update(chunk: Uint8Array): void;
}

/**
 * What a merchant calls on a receiver. The adapters' fast path (`handle`, `reject`, the body limit…)
 * is not on it: it is the `internals` of an `InternalReceiver`, which `src/adapter-kit` reads through `internalsOf`.
 */
export interface Receiver {
  on<N extends EventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): Receiver;
  onAny(handler: EventHandler<PixEvent>): Receiver;
  onUnknown(handler: EventHandler<UnknownEvent>): Receiver;
  onError(handler: ErrorHandler): Receiver;
  /** Gets every verified body that is not JSON or misses an essential; the answer stays 400 so the sender retries. */
  onInvalid(handler: InvalidHandler): Receiver;
  /** Hears every violation the payment book finds, held or flagged, with the event (needs a `book`). */
  onViolation(handler: ViolationHandler): Receiver;
  /** Runs a held event's handlers exactly once (across instances sharing the book); see "Payment safety". */
  release(heldId: string, trail?: ReleaseTrail): Promise<ReleaseResult>;
  /** With `disputeAlertMs`: tells `onViolation` about open disputes that reached the alert age now (see `Processing.checkDisputes`). */
  checkDisputes(): Promise<number>;
  /** The whole pipeline: verify → parse → normalize → process → answer. Never rejects. */
  receive(request: ReceiveRequest): Promise<ReceiveResult>;
  /** Resolves `true` once every accepted event's handlers have settled (see `Processing.drain`). */
  drain(options?: { timeoutMs?: number }): Promise<boolean>;
  /**
   * Ends the receiver: drains (bounded by `timeoutMs`), stops its timers and flushes the journal (see
   * `Processing.close`). With a given `processing`, only drains it: its owner closes it. Safe to call twice.
   */
  close(options?: { timeoutMs?: number }): Promise<boolean>;
  metrics(): ReceiverMetrics;
  /**
   * Asks the store, and the book, journal and queue when present, one cheap question each (bounded by
   * `storeTimeoutMs`): `ok` when all answered. A failing one is `{ ok: false, detail }` (never a secret).
   * `pixhook listen`, `worker` and `console` serve it as `GET /healthz`. Never rejects.
   */
  health(): Promise<ReceiverHealth>;
}

/**
 * What adapters and the CLI need of a receiver and merchants never call. Kept off the public
 * type, as hono keeps its dispatch behind `fetch`: only `src/adapter-kit` reads it, through `internalsOf`.
 */
export interface ReceiverInternals {
  readonly mode: AckMode;
  readonly maxBodyBytes: number;
  /** True when work after the answer is kept alive by a `waitUntil` option. */
  readonly hasWaitUntil: boolean;
  /** The lower-cased header the signature is read from. */
  readonly signatureHeader: string;
  /** The processing this receiver hands events to (the CLI's durable worker runs jobs with it). */
  readonly processing: Processing;
  /**
   * `receive`, answering synchronously when every step was synchronous (bytes in hand, node:crypto,
   * an in-process store, synchronous handlers): the adapters' fast path. Never throws or rejects.
   */
  handle(request: ReceiveRequest, check?: ChunkCheck): ReceiveResult | Promise<ReceiveResult>;
  /**
   * Present when the body's signature can be computed as its bytes arrive (node:crypto, `sha256=`; a source's
   * `bodyCheck`, PagBank's and Woovi's, for a receiver `receiverOver` builds): an
   * adapter that reads a stream calls it with the headers before the first byte, feeds every chunk it
   * keeps (in order, and nothing else), then hands the check to `handle` beside exactly those bytes.
   * Undefined when it answers undefined: the core then verifies the whole body, as always.
   */
  readonly bodyCheck?: (headers: HeaderSource) => ChunkCheck | undefined;
  /** True with a journal: adapters then pass `remoteAddress` (and skip reading it otherwise). */
  readonly journaled: boolean;
  /** True when the receiver decides on the connection (`pixhook/api-pix`): adapters then pass `url` and `peer`. */
  readonly peer?: boolean;
  /** True when only a TLS socket Node terminated can authenticate (API Pix `mtls`): runtimes without one refuse it. */
  readonly needsTls?: boolean;
  /** True when authentication reads the peer's address (API Pix `proxy`, `urlSecret.allowFrom`): runtimes that give none refuse it. */
  readonly needsAddress?: boolean;
  /**
   * The answer for a failure an adapter found before the core could read the body (or a misconfiguration
   * it found); `request` (headers, remote address) goes to the journal.
   */
  reject(
    reason: BodyFailureReason | 'method_not_allowed' | 'internal_error',
    hint?: string,
    request?: Pick<ReceiveRequest, 'method' | 'headers' | 'remoteAddress'>,
  ): ReceiveResult;
}

/** A receiver as `createReceiver` (or `createApiPixReceiver`) makes it: the public object and the adapters' part. */
export interface InternalReceiver extends Receiver {
  readonly internals: ReceiverInternals;
}
