import type { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import type { Processing } from '../processing/create-processing.js';
import { deliveryProcessingOf } from '../processing/delivery-context.js';
import { registrationOf } from '../processing/handler-registry.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { Telemetry } from '../shared/telemetry.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { Source } from '../sources/source.js';
import type { createAnswers, ReceiveResult } from './receive-answer.js';
import { withInternals } from './receiver-internals.js';
import type { InvalidHandler } from './receiver-options.js';
import type { InternalReceiver, Receiver, ReceiveRequest } from './receiver-types.js';
import type { SourceDelivery } from './source-delivery.js';
import { sourcePipeline, type SourceKeeper } from './source-pipeline.js';
import { traceDelivery } from './trace-delivery.js';

interface ReceiverParts {
  processing: Processing;
  /** False when the caller gave its own `processing`. */
  ownsProcessing: boolean;
  /** Live: `onInvalid` adds to it. */
  invalidHandlers: InvalidHandler[];
  answers: Pick<ReturnType<typeof createAnswerMetrics>, 'snapshot' | 'answered'>;
}

/**
 * The public `Receiver` over a pipeline's `handle` and its processing: registration, `onInvalid`,
 * `onViolation`, release, drain and close (a given processing is only drained: its owner closes it), metrics.
 * Every receiver is this object, built by `receiverOver` over its source's pipeline.
 */
function publicReceiver(parts: ReceiverParts & { handle: (request: ReceiveRequest) => MaybePromise<ReceiveResult> }): Receiver {
  const { processing, invalidHandlers, handle, answers } = parts;
  const intake = deliveryProcessingOf(processing);
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
    health: () => intake.health(),
  };
  return receiver;
}

/**
 * A source's receiver (`src/sources/`): its pipeline (`source-pipeline.ts`) on the given processing, the public
 * object, and what adapters read (the body limit, whether they pass the URL and the peer, TLS or an address).
 * `createReceiver` (the gateway's), `createApiPixReceiver` and `createPspReceiver` are their options' checks, then this.
 */
export function receiverOver(
  source: Source,
  parts: ReceiverParts & {
    answer: ReturnType<typeof createAnswers>;
    keep: SourceKeeper;
    maxBodyBytes: number;
    fetchTimeoutMs: number;
    report: (result: ReceiveResult, ms: number, delivery: SourceDelivery) => void;
    onRead?: (event: PixEvent | UnknownEvent) => void;
    /** One `pixhook receive` span around each delivery (`pixhook/otel`): the body is then checked whole, inside it. */
    telemetry?: Telemetry | undefined;
  },
): InternalReceiver {
  const { processing, answer, maxBodyBytes, telemetry } = parts;
  const intake = deliveryProcessingOf(processing);
  const pipeline = sourcePipeline(source, { ...parts, intake });
  const { reject, streamCheck } = pipeline;
  const untraced = async (request: ReceiveRequest): Promise<ReceiveResult> => pipeline.handle(request);
  const handle =
    telemetry === undefined ? pipeline.handle : (request: ReceiveRequest) => traceDelivery(telemetry, request, processing.mode, untraced);
  const { needs } = source;
  return withInternals(publicReceiver({ ...parts, handle }), {
    mode: processing.mode,
    maxBodyBytes,
    hasWaitUntil: processing.hasWaitUntil === true,
    // The header `pixhook listen --forward` signs again (the gateway's); none for a source that is not `single`.
    signatureHeader: source.single?.signatureHeader ?? '',
    processing,
    handle,
    // A signed body (the gateway, PagBank, Woovi) hashed as a node:http adapter reads it; none for a source without a
    // body check, nor under telemetry (its span verifies the whole body).
    ...(streamCheck !== undefined && telemetry === undefined && { bodyCheck: streamCheck }),
    journaled: intake.journalWriter !== undefined,
    // Mercado Pago signs the query's data.id, URL secrets sit in the URL, API Pix reads the connection: adapters then pass them.
    peer: needs.url,
    ...(needs.tls !== undefined && { needsTls: needs.tls }),
    ...(needs.address !== undefined && { needsAddress: needs.address }),
    reject: (reason, hint, request) =>
      reject(answer(reason, hint === undefined ? {} : { hint }), { headers: {}, body: undefined, ...request }),
  });
}
