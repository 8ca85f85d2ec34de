// The adapter kit: what `adapters/` and `cli/` need of a receiver and merchants never call. Not a
// package export; the lint boundaries let only adapters/ and cli/ import it (test/lint).
import type { Receiver, ReceiveRequest } from '../intake/create-receiver.js';
import { internalsOf, registerInternals, type ReceiverInternals } from '../intake/receiver-internals.js';
import type { ReceiveResult } from '../intake/receive-answer.js';

export { internalsOf, type ReceiverInternals } from '../intake/receiver-internals.js';
export { assertKeptAlive } from './assert-kept-alive.js';
export { logToConsole, surfaceSafely } from './surface-error.js';
export { isPromise } from '../shared/maybe-promise.js';

/**
 * The same receiver with its deliveries going through `receive` first (the CLI's `--forward-to`):
 * adapters given the copy call `receive` on their fast path; handlers and metrics stay the original's.
 */
export function withReceive(receiver: Receiver, receive: (request: ReceiveRequest) => Promise<ReceiveResult>): Receiver {
  const wrapped: Receiver = { ...receiver, receive };
  const internals: ReceiverInternals = { ...internalsOf(receiver), handle: receive };
  registerInternals(wrapped, internals);
  return wrapped;
}
