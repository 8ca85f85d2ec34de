import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import { batchAnswer } from '../api-pix/receiver/batch-answer.js';
import type { PspTransactionEvent } from '../events/event-types.js';
import { parseJson, readBody, takeBody, type BodyRead } from '../intake/read-body.js';
import { createAnswers, type ReceiveResult } from '../intake/receive-answer.js';
import { withInternals } from '../intake/receiver-internals.js';
import { refuseIgnoredWithProcessing, type InvalidHandler } from '../intake/receiver-options.js';
import type { Receiver, ReceiveRequest } from '../intake/receiver-types.js';
import { receiverOver } from '../intake/receiver-over.js';
import { logFields } from '../intake/log-fields.js';
import { callEntry } from '../journal/entries.js';
import { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import { createProcessing } from '../processing/create-processing.js';
import { deliveryProcessingOf, type DeliveryContext } from '../processing/delivery-context.js';
import type { ProcessingOptions } from '../processing/processing-options.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger, silentLogger, type Logger } from '../shared/logger.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import { sourceRegistry, type PspSourceOptions } from '../sources/registry.js';
import type { Fetched, Source, Verdict } from '../sources/source.js';
import { createPspKeeper } from './keep-psp-body.js';
import { PspDelivery } from './psp-delivery.js';
import { resolvePspIntake, type PspReceiverOptions } from './psp-options.js';

/**
 * A receiver for one PSP's own Pix webhooks (Mercado Pago, Asaas, PagBank, Woovi, Pagar.me). It is a
 * `Receiver`: every adapter serves it unchanged, and its events go through the same processing (dedupe,
 * payment book, order, journal) as the gateway's, under the same names: one `on('transaction_paid')`
 * serves every PSP. The pipeline: method → the source's authentication (before the body) → bytes (hashed
 * as they arrive where the body is signed) → JSON → the source's reader → the PSP's API where the body is
 * only a hint (bounded; 503 when it cannot answer, nothing claimed) → each event's claim, book step and
 * handlers, in order.
 */
export function createPspReceiver(options: PspReceiverOptions): Receiver {
  const intakeOptions = resolvePspIntake(options);
  const source = (sourceRegistry[options.psp].create as (o: PspSourceOptions) => Source)(options);
  if (options.processing) refuseIgnoredWithProcessing(options);
  const processing = options.processing ?? createProcessing(options as ProcessingOptions);
  const log: Logger = guardLogger(options.logger);
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const answer = createAnswers(intakeOptions.retryAfterSeconds);
  const intake = deliveryProcessingOf(processing);
  const writer = intake.journalWriter;
  const keep = createPspKeeper({ source, log, handlers: invalidHandlers, quarantine, counted: () => answers.invalid() });
  const { maxBodyBytes, fetchTimeoutMs } = intakeOptions;
  const label = `pixhook: ${source.provider} delivery`;

  function refused(verdict: Verdict & { ok: false }): ReceiveResult {
    return answer(verdict.reason, { hint: verdict.hint, ...(verdict.message !== undefined && { message: verdict.message }) });
  }

  // ── The pipeline: synchronous until a step really is asynchronous, as createReceiver's.
  function pipeline(delivery: PspDelivery): MaybePromise<ReceiveResult> {
    const { request } = delivery;
    // 1. Only POST carries deliveries.
    if (request.method !== undefined && request.method !== 'POST' && request.method.toUpperCase() !== 'POST')
      return answer('method_not_allowed');
    // 2. The source's authentication: headers and URL, before a byte of the body is read.
    return andThen(source.authenticate(delivery.head), authenticated, undefined, delivery);
  }

  function authenticated(verdict: Verdict, delivery: PspDelivery): MaybePromise<ReceiveResult> {
    if (!verdict.ok) return refused(verdict);
    // 3. The exact bytes, within the limit.
    const { body } = delivery.request;
    if (typeof body === 'function') return readBody(body, maxBodyBytes).then((read) => withBody(read, delivery));
    return withBody(takeBody(body, maxBodyBytes), delivery);
  }

  function withBody(body: BodyRead, delivery: PspDelivery): MaybePromise<ReceiveResult> {
    if (!body.ok)
      return answer(body.reason, {
        ...(body.hint !== undefined && { hint: body.hint }),
        ...(body.message !== undefined && { message: body.message }),
      });
    delivery.bytes = body.bytes;
    // 4. A signed body: its hash over the exact bytes (fed as one chunk here: adapters hand the bytes whole).
    if (source.bodyCheck === undefined) return verified(delivery);
    const check = source.bodyCheck(delivery.head);
    check.update(body.bytes);
    return andThen(check.end(), (verdict, d: PspDelivery) => (verdict.ok ? verified(d) : refused(verdict)), undefined, delivery);
  }

  function verified(delivery: PspDelivery): MaybePromise<ReceiveResult> {
    delivery.verified = true;
    // 5. JSON, then the source's reader. A body we cannot read at all is kept and answered 400.
    const json = parseJson(delivery.bytes);
    if (!json.ok) return keep(delivery, 'json_invalid', json.message).then(() => answer('json_invalid', { hint: json.message }));
    delivery.body = json.text;
    delivery.json = json.value;
    const read = source.read(json.value, delivery.head);
    for (const event of read.events) delivery.events.push(event as PspTransactionEvent);
    delivery.failures.push(...read.failures);
    if (read.events.length === 0 && read.hints.length === 0) {
      if (read.failures.length === 0) return answer('unknown_event');
      const detail = read.failures.map((failure) => failure.message).join('; ');
      return keep(delivery, 'payload_invalid', detail).then(() => answer('payload_invalid', { hint: detail }));
    }
    if (read.hints.length === 0) return andThen(runEvents(delivery, 0), afterEvents, undefined, delivery);
    // 6. Where the body is only a hint, the PSP's API decides: every hint fetched before the first claim.
    return fetchAll(read.hints, delivery);
  }

  async function fetchAll(hints: Parameters<NonNullable<Source['fetch']>>[0][], delivery: PspDelivery): Promise<ReceiveResult> {
    const signal = AbortSignal.timeout(fetchTimeoutMs);
    const fetched = await Promise.all(
      hints.map((hint) =>
        source.fetch!(hint, signal).catch((error: unknown): Fetched => ({ status: 'unavailable', hint: describeError(error) })),
      ),
    );
    const unavailable = fetched.find((one) => one.status === 'unavailable');
    if (unavailable !== undefined) return answer('gateway_unavailable', { hint: unavailable.hint });
    const missing: string[] = [];
    for (const one of fetched) {
      if (one.status === 'events') for (const event of one.events) delivery.events.push(event as PspTransactionEvent);
      else if (one.status === 'not_found') missing.push(one.hint);
    }
    // A 404 is kept with the body, never dispatched: the PSP (or a forger with the URL secret) named a record that is not there.
    if (missing.length > 0) await keep(delivery, 'payload_invalid', `not found at ${source.provider}: ${missing.join('; ')}`);
    return andThen(runEvents(delivery, 0), afterEvents, undefined, delivery);
  }

  /** Accepts `delivery.events[from…]` one after another; synchronous while processing answers synchronously. */
  function runEvents(delivery: PspDelivery, from: number): MaybePromise<void> {
    for (let i = from; i < delivery.events.length; i++) {
      const event = delivery.events[i]!;
      const accepted = intake.acceptDelivery(event, contextOf(delivery));
      if (isPromise(accepted))
        return accepted.then((result) => {
          delivery.outcomes.push({ event, accepted: result });
          return runEvents(delivery, i + 1);
        });
      delivery.outcomes.push({ event, accepted });
    }
    return undefined;
  }

  function contextOf(delivery: PspDelivery): DeliveryContext {
    return {
      body: undefined,
      waitUntil: delivery.request.waitUntil,
      trace: undefined,
      replayOf: delivery.request.replayOf,
      journal: delivery.journal,
    };
  }

  function afterEvents(_: void, delivery: PspDelivery): MaybePromise<ReceiveResult> {
    // Unreadable items beside readable ones: kept with the bytes; once kept they do not hold the answer.
    if (delivery.failures.length === 0 || delivery.outcomes.length === 0) return batchAnswer(answer, delivery.outcomes, undefined);
    const detail = delivery.failures.map((failure) => failure.message).join('; ');
    return keep(delivery, 'payload_invalid', detail).then(() => batchAnswer(answer, delivery.outcomes, undefined));
  }

  function finish(result: ReceiveResult, delivery: PspDelivery): ReceiveResult {
    try {
      if (delivery.journal !== undefined) writer!.add(delivery.journal, () => callEntry(delivery, result));
      const ms = performance.now() - delivery.startedAt;
      answers.answered(result.status, result.reason, ms);
      if (log === silentLogger) return result;
      const fields = { ...logFields(result, ms), provider: source.provider };
      if (result.status >= 500) log.error(fields, label);
      else if (result.status >= 300) log.warn(fields, label);
      else log.info(fields, label);
    } catch {
      // Logging and journaling are guarded; this is the last line of "receive() never rejects".
    }
    return result;
  }

  /** The pipeline, its answer counted, logged and journaled. Never throws or rejects. */
  const handle = (request: ReceiveRequest): MaybePromise<ReceiveResult> => {
    const delivery = new PspDelivery(writer?.open(Date.now()), request);
    let running: MaybePromise<ReceiveResult>;
    try {
      running = pipeline(delivery);
    } catch (error) {
      return finish(answer('internal_error', { hint: describeError(error) }), delivery);
    }
    return andThen(
      running,
      finish,
      (error: unknown, failed: PspDelivery) => finish(answer('internal_error', { hint: describeError(error) }), failed),
      delivery,
    );
  };

  const receiver = receiverOver({ processing, ownsProcessing: !options.processing, invalidHandlers, handle, answers });
  return withInternals(receiver, {
    mode: processing.mode,
    maxBodyBytes,
    hasWaitUntil: processing.hasWaitUntil === true,
    signatureHeader: '',
    processing,
    handle,
    journaled: writer !== undefined,
    // Mercado Pago signs the query's data.id and Pagar.me's secret is in the URL: adapters then pass the target.
    peer: source.needs.url,
    reject: (reason, hint) =>
      finish(answer(reason, hint === undefined ? {} : { hint }), new PspDelivery(undefined, { headers: {}, body: undefined })),
  });
}
