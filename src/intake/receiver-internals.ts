import type { Processing } from '../processing/create-processing.js';
import type { AckMode } from '../processing/processing-options.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { BodyFailureReason } from '../shared/reasons.js';
import type { Receiver, ReceiveRequest } from './create-receiver.js';
import type { ReceiveResult } from './receive-answer.js';

/**
 * What adapters and the CLI need of a receiver and merchants never call. Kept off the public object,
 * as hono keeps its dispatch behind `fetch`: only `src/adapter-kit` reads it.
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
  handle(request: ReceiveRequest): ReceiveResult | Promise<ReceiveResult>;
  /** True with a journal: adapters then pass `remoteAddress` (and skip reading it otherwise). */
  readonly journaled: boolean;
  /** True when the receiver decides on the connection (`pixhook/api-pix`): adapters then pass `url` and `peer`. */
  readonly peer?: boolean;
  /** True when only a TLS socket Node terminated can authenticate (API Pix `mtls`): runtimes without one refuse it. */
  readonly needsTls?: boolean;
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

// Module-private: a receiver's internals are reachable only through this module's two functions.
const internals = new WeakMap<Receiver, ReceiverInternals>();

/** Called by `createReceiver` (and the kit's `withHandle`) for each receiver it returns. */
export function registerInternals(receiver: Receiver, parts: ReceiverInternals): void {
  internals.set(receiver, parts);
}

/** The internals of a receiver `createReceiver` made; anything else is refused (an adapter reads them once, when created). */
export function internalsOf(receiver: Receiver): ReceiverInternals {
  const found = typeof receiver === 'object' && receiver !== null ? internals.get(receiver) : undefined;
  if (found === undefined) throw new PixhookConfigError('pixhook: `receiver` must be a receiver made by createReceiver().');
  return found;
}
