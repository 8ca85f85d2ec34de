import type { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import type { Processing } from '../processing/create-processing.js';
import { registrationOf } from '../processing/handler-registry.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { ReceiveResult } from './receive-answer.js';
import type { InvalidHandler } from './receiver-options.js';
import type { Receiver, ReceiveRequest } from './receiver-types.js';

/**
 * The public `Receiver` over a pipeline's `handle` and its processing: registration, `onInvalid`,
 * `onViolation`, release, drain and close (a given processing is only drained: its owner closes it), metrics.
 * `pixhook/psp` builds its receiver with it; `createReceiver` and `createApiPixReceiver` still spell the same
 * object out and move onto it when they become sources (docs/reference/architecture.md).
 */
export function receiverOver(parts: {
  processing: Processing;
  /** False when the caller gave its own `processing`. */
  ownsProcessing: boolean;
  /** Live: `onInvalid` adds to it. */
  invalidHandlers: InvalidHandler[];
  handle: (request: ReceiveRequest) => MaybePromise<ReceiveResult>;
  answers: Pick<ReturnType<typeof createAnswerMetrics>, 'snapshot'>;
}): Receiver {
  const { processing, invalidHandlers, handle, answers } = parts;
  const receiver: Receiver = {
    ...registrationOf(() => receiver, processing),
    onInvalid(handler) {
      invalidHandlers.push(handler);
      return receiver;
    },
    onViolation(handler) {
      processing.onViolation(handler);
      return receiver;
    },
    release: (heldId, trail) => processing.release(heldId, trail),
    checkDisputes: () => processing.checkDisputes(),
    receive: async (request) => handle(request),
    drain: (options) => processing.drain(options),
    close: (options) => (parts.ownsProcessing ? processing.close(options) : processing.drain(options)),
    metrics: () => ({ ...processing.metrics(), ...answers.snapshot() }),
  };
  return receiver;
}
