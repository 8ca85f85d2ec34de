import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import { normalizeEvent } from '../events/normalize-event.js';
import { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import { createProcessing, type AcceptResult } from '../processing/create-processing.js';
import { deliveryProcessingOf, type DeliveryContext } from '../processing/delivery-context.js';
import type { SignatureResult } from '../signature/verify-signature.js';
import { describeError } from '../shared/describe-error.js';
import { andThen, type MaybePromise } from '../shared/maybe-promise.js';
import { guardLogger, silentLogger, withTraceFields, type Logger } from '../shared/logger.js';
import { traceDelivery } from './trace-delivery.js';
import { readHeader, type HeaderSource } from '../shared/read-header.js';
import { withTimeout } from '../shared/with-timeout.js';
import { logFields } from './log-fields.js';
import { parseJson, readBody, takeBody, type BodyRead } from './read-body.js';
import { createAnswers, type ReceiveResult } from './receive-answer.js';
import { keepInvalid } from './keep-invalid.js';
import { withInternals } from './receiver-internals.js';
import { publicReceiver } from './receiver-over.js';
import type { ChunkCheck, Receiver, ReceiveRequest } from './receiver-types.js';
import { hmacStart } from '../signature/hmac-sha256.js';
import { SignatureStream, startSignatureStream } from '../signature/signature-stream.js';
import type { JournalRecord, JournalWriter } from '../journal/journal-writer.js';
import { deliveryEntry, type JournaledDelivery } from '../journal/entries.js';
import { refuseIgnoredWithProcessing, resolveIntakeOptions, type InvalidHandler, type ReceiverOptions } from './receiver-options.js';

export type { Receiver, ReceiveRequest } from './receiver-types.js';

const keepInvalidTimeoutMs = 2_000;

export function createReceiver(options: ReceiverOptions): Receiver {
  const config = resolveIntakeOptions(options);
  if (options.processing) refuseIgnoredWithProcessing(options);
  const processing = options.processing ?? createProcessing(options);
  // What the pipeline hands each delivery to (with the journal's writer, so a delivery and its handler runs share one queue).
  const intake = deliveryProcessingOf(processing);
  const telemetry = options.telemetry;
  const log: Logger = withTraceFields(guardLogger(options.logger), telemetry);
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  // The store's own quarantine is the processing's, whether the receiver made it or was given it.
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const answer = createAnswers(config.retryAfterSeconds);
  const writer = intake.journalWriter;

  // ── The pipeline, top to bottom ────────────────────────────────────────────────────────────────
  // Synchronous until a step really is asynchronous (a body still to read, Web Crypto, a remote
  // store, an async handler): every await is a tick on the hot path. Each step hands the next one
  // the delivery, so the synchronous path makes no closure.
  function pipeline(delivery: Delivery): MaybePromise<ReceiveResult> {
    // 1. Only POST carries deliveries.
    const { request } = delivery;
    if (request.method !== undefined && request.method !== 'POST' && request.method.toUpperCase() !== 'POST')
      return answer('method_not_allowed');

    // 2. The exact raw bytes, within the size limit.
    if (typeof request.body === 'function') return readBody(request.body, config.maxBodyBytes).then((body) => withBody(body, delivery));
    return withBody(takeBody(request.body, config.maxBodyBytes), delivery);
  }

  function withBody(body: BodyRead, delivery: Delivery): MaybePromise<ReceiveResult> {
    if (!body.ok)
      return answer(body.reason, {
        ...(body.hint !== undefined && { hint: body.hint }),
        ...(body.message !== undefined && { message: body.message }),
      });

    // 3. The signature, over those bytes, before anything is parsed; the scheme's own message is the answer's.
    // An adapter that read a stream already hashed exactly these bytes as they arrived: only the digests are compared.
    delivery.bytes = body.bytes;
    if (delivery.check instanceof SignatureStream) return verified(delivery.check.end(), delivery);
    const signature = readHeader(delivery.request.headers, config.signatureHeader);
    return andThen(config.verify({ body: body.bytes, signature, secret: config.secrets }), verified, undefined, delivery);
  }

  function verified(signature: SignatureResult, delivery: Delivery): MaybePromise<ReceiveResult> {
    if (!signature.ok)
      return answer(signature.reason, { message: signature.message, ...(signature.hint !== undefined && { hint: signature.hint }) });

    // 4. JSON, then the event's essentials. A verified body we cannot read is kept, never dropped.
    delivery.verified = true;
    const { bytes, request } = delivery;
    const json = parseJson(bytes);
    if (!json.ok) return invalid('json_invalid', bytes, request.headers, json.message);
    const normalized = normalizeEvent(json.value);
    if (!normalized.ok) return invalid('payload_invalid', bytes, request.headers, normalized.message, json.value);
    const event = normalized.event;
    if (event.kind !== 'unknown' && event.warnings !== undefined && event.warnings.length > 0) {
      log.warn({ event: event.name, warnings: event.warnings }, 'pixhook: fields of an unexpected type were left out of the typed event');
    }

    // 5. Processing: dedupe claim, dispatch, acknowledgement mode (the delivery is its context: body, waitUntil, journal record).
    delivery.event = event;
    delivery.body = json.text;
    return andThen(intake.acceptDelivery(event, delivery), answered, undefined, delivery);
  }

  function answered(accepted: AcceptResult, delivery: Delivery): ReceiveResult {
    const result = answer(accepted.reason);
    result.event = delivery.event;
    if (accepted.key !== undefined) result.key = accepted.key;
    if (accepted.hint !== undefined) result.hint = accepted.hint;
    return result;
  }

  async function invalid(
    reason: 'json_invalid' | 'payload_invalid',
    bytes: Uint8Array,
    headers: HeaderSource,
    detail: string,
    json?: unknown,
  ): Promise<ReceiveResult> {
    answers.invalid();
    // Bounded: keeping the body must not hold the answer past the sender's patience.
    await withTimeout(
      keepInvalid({ reason, detail, bytes, headers, json, handlers: invalidHandlers, quarantine, log, report: reportInvalidFailure }),
      keepInvalidTimeoutMs,
      'keeping an invalid delivery',
    ).catch((error: unknown) => reportInvalidFailure(error, 'onInvalid or the quarantine'));
    const message = reason === 'payload_invalid' ? `The body is not a known event shape: ${detail}` : undefined;
    return answer(reason, { hint: detail, ...(message !== undefined && { message }) });
  }

  function reportInvalidFailure(error: unknown, where: string): void {
    log.error({ error: describeError(error) }, `pixhook: ${where} failed for an invalid delivery`);
  }

  function finish(result: ReceiveResult, startedAt: number): ReceiveResult {
    const ms = performance.now() - startedAt;
    answers.answered(result.status, result.reason, ms);
    // The default logger drops everything: skip building its fields on every delivery.
    if (log === silentLogger) return result;
    const fields = logFields(result, ms);
    if (result.status >= 500) log.error(fields, 'pixhook: delivery');
    else if (result.status >= 300) log.warn(fields, 'pixhook: delivery');
    else log.info(fields, 'pixhook: delivery');
    return result;
  }

  /** The pipeline, its answer counted and logged; synchronous when every step was. Never throws or rejects. */
  function handleNow(request: ReceiveRequest, check?: ChunkCheck): MaybePromise<ReceiveResult> {
    const delivery = new Delivery(request, writer);
    if (check !== undefined) delivery.check = check;
    let running: MaybePromise<ReceiveResult>;
    try {
      running = pipeline(delivery);
    } catch (error) {
      // Only a bug lands here; the process must not crash on it.
      return done(failed(error), delivery);
    }
    return andThen(running, done, failedAt, delivery);
  }

  function failed(error: unknown): ReceiveResult {
    return answer('internal_error', { hint: describeError(error) });
  }

  function failedAt(error: unknown, delivery: Delivery): ReceiveResult {
    return done(failed(error), delivery);
  }

  function done(result: ReceiveResult, delivery: Delivery): ReceiveResult {
    try {
      if (delivery.journal !== undefined) journal(delivery, result);
      return finish(result, delivery.startedAt);
    } catch {
      // finish() is guarded throughout; this is the last line of "receive() never rejects".
      return result;
    }
  }

  /** Queues the delivery's entry: built and written after the answer, never holding it. */
  function journal(delivery: Delivery, result: ReceiveResult): void {
    writer!.add(delivery.journal!, () => deliveryEntry(delivery, result, config.signatureHeader));
  }

  async function receiveUntraced(request: ReceiveRequest): Promise<ReceiveResult> {
    return handleNow(request);
  }

  const handle = (request: ReceiveRequest, check?: ChunkCheck): ReceiveResult | Promise<ReceiveResult> =>
    telemetry !== undefined ? traceDelivery(telemetry, request, processing.mode, receiveUntraced) : handleNow(request, check);
  const receiver = publicReceiver({ processing, ownsProcessing: !options.processing, invalidHandlers, handle, answers });
  return withInternals(receiver, {
    mode: processing.mode,
    maxBodyBytes: config.maxBodyBytes,
    hasWaitUntil: processing.hasWaitUntil === true,
    signatureHeader: config.signatureHeader,
    processing,
    handle,
    // The sha256 scheme on node:crypto: the adapter hashes the body as it arrives (a timestamped one signs more than the
    // body). Not under telemetry: its traced path verifies the whole body inside the delivery's span.
    ...(config.signatureScheme === 'sha256' &&
      hmacStart !== undefined &&
      telemetry === undefined && {
        bodyCheck: (headers: HeaderSource) => startSignatureStream(readHeader(headers, config.signatureHeader), config.secrets),
      }),
    journaled: writer !== undefined,
    reject: (reason, hint, request) => {
      const result = answer(reason, hint === undefined ? {} : { hint });
      if (writer !== undefined) {
        const delivery = new Delivery({ headers: {}, body: undefined, ...request }, writer);
        if (delivery.journal !== undefined) journal(delivery, result);
      }
      return finish(result, performance.now());
    },
  });
}

/**
 * One delivery between the pipeline's steps; also its context for processing (the verified body, the
 * request's `waitUntil`, the journal record). A class: one is made per request.
 */
class Delivery implements DeliveryContext, JournaledDelivery {
  bytes: Uint8Array = empty;
  event: PixEvent | UnknownEvent | undefined = undefined;
  body: string | undefined = undefined;
  verified = false;
  /** The body's signature as an adapter computed it while reading (`ReceiverInternals.bodyCheck`). */
  check: ChunkCheck | undefined = undefined;
  readonly startedAt = performance.now();
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  readonly replayOf: string | undefined;
  /** Taken by processing when it starts the run. */
  readonly trace: undefined = undefined;
  /** With a journal: the entry's id (processing appends the handler runs to it) and the arrival time. */
  readonly journal: JournalRecord | undefined;
  readonly arrivedAt: number = 0;

  constructor(
    readonly request: ReceiveRequest,
    writer: JournalWriter | undefined,
  ) {
    this.waitUntil = request.waitUntil;
    this.replayOf = request.replayOf;
    if (writer === undefined) {
      this.journal = undefined;
      return;
    }
    this.arrivedAt = Date.now();
    this.journal = writer.open(this.arrivedAt);
  }
}

const empty = new Uint8Array(0);
