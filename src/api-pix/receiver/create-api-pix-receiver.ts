import type { QuarantineStore } from '../../dedupe/quarantine-store.js';
import type { Receiver, ReceiveRequest } from '../../intake/create-receiver.js';
import { parseJson, readBody, takeBody, type BodyRead } from '../../intake/read-body.js';
import { createAnswers, type ReceiveResult } from '../../intake/receive-answer.js';
import { withInternals } from '../../intake/receiver-internals.js';
import { refuseIgnoredWithProcessing, type InvalidHandler } from '../../intake/receiver-options.js';
import { logFields } from '../../intake/log-fields.js';
import { deliveryProcessingOf, type DeliveryContext } from '../../processing/delivery-context.js';
import { createAnswerMetrics } from '../../metrics/receiver-metrics.js';
import { createProcessing, type Processing } from '../../processing/create-processing.js';
import { registrationOf } from '../../processing/handler-registry.js';
import type { ProcessingOptions } from '../../processing/processing-options.js';
import { describeError } from '../../shared/describe-error.js';
import { guardLogger, silentLogger, type Logger } from '../../shared/logger.js';
import { andThen, isPromise, type MaybePromise } from '../../shared/maybe-promise.js';
import { optionalNumber } from '../../shared/option-checks.js';
import { callEntry } from '../../journal/entries.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { Call } from './api-pix-call.js';
import { resolveAuth, type ApiPixAuth, type AuthRefusal } from './api-pix-auth.js';
import { batchAnswer } from './batch-answer.js';
import { createInvalidKeeper } from './keep-invalid.js';
import { readBatch, readItem } from './read-batch.js';
import { checkItemKey } from './key-check.js';
import { resolveKeys } from './receiving-keys.js';
import { createRefusalWarnings } from './refusal-warnings.js';
import { reasonGroup, type ReasonCode } from '../../shared/reasons.js';

interface ApiPixIntakeOptions {
  /** How the PSP's calls are authenticated (required; exactly one mode). */
  auth: ApiPixAuth;
  /**
   * The merchant's receiving keys (`chave`). When given, a Pix to any other key (or naming none) is never
   * dispatched: the payment book holds it as `unknown_key`, or, without a `book`, it is kept in the
   * quarantine and reported to `onInvalid`.
   */
  keys?: readonly string[];
  /** Larger bodies get 413. Default 1 MiB (a 50-item batch is about 25 KiB). */
  maxBodyBytes?: number;
  /** `Retry-After` on 503 answers, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /** Gets every call (or item of a call) that cannot be read as an event, with the call's exact bytes. */
  onInvalid?: InvalidHandler;
  /** Where such calls are kept for a replay. Default: the store's own; `false` for none. */
  quarantine?: QuarantineStore | false;
  logger?: Logger;
}

/** `createApiPixReceiver`'s options: the intake's, then the processing's (or a shared `processing`), as `createReceiver`. */
export type ApiPixReceiverOptions = ApiPixIntakeOptions &
  ((ProcessingOptions & { processing?: undefined }) | ({ processing: Processing } & { [K in keyof ProcessingOptions]?: undefined }));

const notHere = ['secret', 'signature', 'telemetry'] as const;

/** Who-is-calling refusals (401 / 403): the ones an operator must see once, not per call. */
const isRefusal = (reason: ReasonCode): boolean => reasonGroup(reason) === 'signature';

/**
 * A receiver for the Central Bank's standard API Pix webhooks (bacen/pix-api): `{webhookUrl}/pix`,
 * `/rec` and `/cobr`. It is a `Receiver`: every adapter serves it unchanged. Each item of a call is its
 * own event with its own claim, book step and handlers; the call is answered 200 once every item was
 * handled, accepted, or (unreadable) kept in the quarantine, and a PSP's retry of the whole call re-runs
 * only what was not done.
 */
export function createApiPixReceiver(options: ApiPixReceiverOptions): Receiver {
  if (typeof options !== 'object' || options === null)
    throw new PixhookConfigError('pixhook: `options` of createApiPixReceiver must be an object with `auth`.');
  for (const name of notHere) {
    if ((options as unknown as Record<string, unknown>)[name] !== undefined)
      throw new PixhookConfigError(
        `pixhook: \`${name}\` does not apply to createApiPixReceiver: the standard API Pix is not signed; set \`auth\` (mtls, proxy or urlSecret).`,
      );
  }
  const auth = resolveAuth(options.auth);
  const keys = resolveKeys(options.keys);
  const maxBodyBytes = optionalNumber('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, {
    min: 1,
    max: 1024 * 1024 * 1024,
    note: '(1 GiB)',
  });
  const retryAfterSeconds = optionalNumber('retryAfterSeconds', options.retryAfterSeconds, 5, { min: 1, max: 86_400, note: '(24 h)' });
  if (options.onInvalid !== undefined && typeof options.onInvalid !== 'function')
    throw new PixhookConfigError('pixhook: `onInvalid` must be a function.');
  if (options.processing) refuseIgnoredWithProcessing(options);
  const processing = options.processing ?? createProcessing(options as ProcessingOptions);
  const log: Logger = guardLogger(options.logger);
  const warnRefusal = createRefusalWarnings(options.logger);
  const keyList = keys === undefined ? '' : [...keys].slice(0, 5).join(', ') + (keys.size > 5 ? ', …' : '');
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const answer = createAnswers(retryAfterSeconds);
  const intake = deliveryProcessingOf(processing);
  const keeper = createInvalidKeeper({ log, counted: () => answers.invalid(), handlers: invalidHandlers, quarantine, answer });
  const writer = intake.journalWriter;

  // ── The pipeline: synchronous until a step really is asynchronous (as createReceiver's), so a call
  //    whose store and handlers answer at once is answered in the same turn.
  function pipeline(request: ReceiveRequest, call: Call): MaybePromise<ReceiveResult> {
    // 1. Only POST carries calls.
    if (request.method !== undefined && request.method !== 'POST' && request.method.toUpperCase() !== 'POST')
      return answer('method_not_allowed');
    // 2. Who is calling, before a byte of the body is read.
    return andThen(auth.check({ headers: request.headers, url: request.url, peer: request.peer }), authenticated, undefined, call);
  }

  function authenticated(refused: AuthRefusal | undefined, call: Call): MaybePromise<ReceiveResult> {
    if (refused !== undefined) return answer(refused.reason, { hint: refused.hint });
    call.verified = true;
    // 3. The exact bytes, within the limit.
    const { request } = call;
    if (typeof request.body === 'function') return readBody(request.body, maxBodyBytes).then((body) => withBody(body, call));
    return withBody(takeBody(request.body, maxBodyBytes), call);
  }

  function withBody(body: BodyRead, call: Call): MaybePromise<ReceiveResult> {
    if (!body.ok)
      return answer(body.reason, {
        ...(body.hint !== undefined && { hint: body.hint }),
        ...(body.message !== undefined && { message: body.message }),
      });
    call.bytes = body.bytes;
    // 4. JSON, then the call's shape. A call we cannot read at all is kept and answered 400, like the gateway's.
    const json = parseJson(body.bytes);
    if (!json.ok) return keeper.whollyInvalid('json_invalid', call, json.message);
    call.body = json.text;
    call.json = json.value;
    const batch = readBatch(json.value, call.request.url);
    if (!batch.ok) return keeper.whollyInvalid('payload_invalid', call, batch.message, json.value);
    call.callback = batch.callback;

    // 5. Each item read and its key checked; then, in order, each event's own claim, book step and handlers.
    for (let i = 0; i < batch.items.length; i++) {
      const base = batch.base === '' ? String(i) : `${batch.base}.${String(i)}`;
      const read = readItem(batch.callback, batch.items[i], base);
      if (read.failures.length > 0) call.failures.push(...read.failures);
      const events =
        keys === undefined
          ? read.events
          : checkItemKey(read.events, keys, intake.hasBook, base, call.failures, (seen) =>
              warnRefusal({
                reason: 'unknown_key',
                peer: call.request.peer?.address,
                hint: `the Pix is to ${seen === undefined ? 'no key' : `key ${seen}`}, not one of keys (${keyList}); ${intake.hasBook ? 'held by the book as unknown_key' : 'kept in the quarantine and given to onInvalid'}`,
              }),
            );
      for (const event of events) call.events.push(event);
    }
    return andThen(runEvents(call, 0), afterEvents, undefined, call);
  }

  /** Accepts `call.events[from…]` one after another; synchronous while processing answers synchronously. */
  function runEvents(call: Call, from: number): MaybePromise<void> {
    for (let i = from; i < call.events.length; i++) {
      const event = call.events[i]!;
      const accepted = intake.acceptDelivery(event, contextOf(call));
      if (isPromise(accepted))
        return accepted.then((result) => {
          call.outcomes.push({ event, accepted: result });
          return runEvents(call, i + 1);
        });
      call.outcomes.push({ event, accepted });
    }
    return undefined;
  }

  function contextOf(call: Call): DeliveryContext {
    // No `body`: processing queues the event's own one-event payload (durable mode), never the whole call.
    // Processing appends each item's handler runs to the call's one journal entry.
    return { body: undefined, waitUntil: call.request.waitUntil, trace: undefined, replayOf: undefined, journal: call.journal };
  }

  function afterEvents(_: void, call: Call): MaybePromise<ReceiveResult> {
    // 6. Unreadable items: kept with the call's bytes. A resend cannot mend them, so once kept they do
    //    not hold the answer (the PSP would resend the readable items forever, then disable the webhook).
    if (call.failures.length === 0) return batchAnswer(answer, call.outcomes, undefined);
    return keeper.keepItems(call).then((kept) => batchAnswer(answer, call.outcomes, kept ? undefined : 'store_unavailable'));
  }

  function finish(result: ReceiveResult, call: Call): ReceiveResult {
    try {
      if (call.journal !== undefined) writer!.add(call.journal, () => callEntry(call, result));
      const ms = performance.now() - call.startedAt;
      answers.answered(result.status, result.reason, ms);
      if (result.reason !== undefined && isRefusal(result.reason)) {
        // One warning per reason per window, with the peer and the real cause, instead of a line per call.
        warnRefusal({ reason: result.reason, peer: call.request.peer?.address, hint: result.hint ?? '' });
        return result;
      }
      if (log === silentLogger) return result;
      const fields = { ...logFields(result, ms), ...(call.outcomes.length > 1 && { items: call.outcomes.length }) };
      if (result.status >= 500) log.error(fields, 'pixhook: API Pix call');
      else if (result.status >= 300) log.warn(fields, 'pixhook: API Pix call');
      else log.info(fields, 'pixhook: API Pix call');
    } catch {
      // Logging and journaling are guarded; this is the last line of "receive() never rejects".
    }
    return result;
  }

  /** The pipeline, its answer counted, logged and journaled; synchronous when every step was. Never throws or rejects. */
  const handle = (request: ReceiveRequest): MaybePromise<ReceiveResult> => {
    const call = new Call(writer?.open(Date.now()), request);
    let running: MaybePromise<ReceiveResult>;
    try {
      running = pipeline(request, call);
    } catch (error) {
      // Only a bug lands here; the process must not crash on it.
      return finish(answer('internal_error', { hint: describeError(error) }), call);
    }
    return andThen(
      running,
      finish,
      (error: unknown, failedCall: Call) => finish(answer('internal_error', { hint: describeError(error) }), failedCall),
      call,
    );
  };

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
    drain: (drainOptions) => processing.drain(drainOptions),
    // A given processing is only drained: its owner closes it.
    close: (closeOptions) => (options.processing ? processing.drain(closeOptions) : processing.close(closeOptions)),
    metrics: () => ({ ...processing.metrics(), ...answers.snapshot() }),
    health: () => intake.health(),
  };
  return withInternals(receiver, {
    mode: processing.mode,
    maxBodyBytes,
    hasWaitUntil: processing.hasWaitUntil === true,
    signatureHeader: '',
    processing,
    handle,
    journaled: writer !== undefined,
    peer: true,
    needsTls: auth.needsTls,
    needsAddress: auth.needsAddress,
    reject: (reason, hint) => {
      const call = new Call(undefined, { headers: {}, body: undefined });
      return finish(answer(reason, hint === undefined ? {} : { hint }), call);
    },
  });
}
