import type { InvalidDelivery, QuarantineStore } from '../../dedupe/quarantine-store.js';
import type { ApiPixEvent } from '../../events/event-types.js';
import { readPixItem, recurrenceEvent, recurringChargeEvent } from '../../events/read-api-pix.js';
import type { EssentialFailure } from '../../events/read-essentials.js';
import type { Receiver, ReceiveRequest } from '../../intake/create-receiver.js';
import { parseJson, readBody, takeBody, type BodyRead } from '../../intake/read-body.js';
import { createAnswers, type ReceiveResult } from '../../intake/receive-answer.js';
import { registerInternals } from '../../intake/receiver-internals.js';
import { refuseIgnoredWithProcessing, type InvalidHandler } from '../../intake/receiver-options.js';
import { logFields } from '../../intake/log-fields.js';
import { isoTime } from '../../journal/iso-time.js';
import type { JournalEntry, JournalItem } from '../../journal/delivery-journal.js';
import type { JournalRecord } from '../../journal/journal-writer.js';
import { deliveryProcessingOf, type DeliveryContext } from '../../processing/delivery-context.js';
import { createAnswerMetrics } from '../../metrics/receiver-metrics.js';
import { createProcessing, type AcceptResult, type Processing } from '../../processing/create-processing.js';
import { registrationOf } from '../../processing/handler-registry.js';
import type { ProcessingOptions } from '../../processing/processing-options.js';
import { describeError } from '../../shared/describe-error.js';
import { guardLogger, silentLogger, type Logger } from '../../shared/logger.js';
import { optionalNumber } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import type { HeaderSource } from '../../shared/read-header.js';
import { reasonStatus, type ReasonCode } from '../../shared/reasons.js';
import { withTimeout } from '../../shared/with-timeout.js';
import { resolveAuth, type ApiPixAuth, type AuthFailure } from './api-pix-auth.js';
import { andThen, isPromise, type MaybePromise } from '../../shared/maybe-promise.js';
import { readBatch, type ApiPixCallback } from './read-batch.js';
import { checkItemKey } from './key-check.js';

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

const keepInvalidTimeoutMs = 2_000;
type AuthRefusal = { reason: AuthFailure; hint: string };
const notHere = ['secret', 'signature', 'telemetry'] as const;

/** One item's outcome inside a call. */
interface ItemOutcome {
  event: ApiPixEvent;
  accepted: AcceptResult;
}

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
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const answer = createAnswers(retryAfterSeconds);
  const intake = deliveryProcessingOf(processing);
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
    if (!json.ok) return whollyInvalid('json_invalid', call, json.message);
    call.body = json.text;
    call.json = json.value;
    const batch = readBatch(json.value, call.request.url);
    if (!batch.ok) return whollyInvalid('payload_invalid', call, batch.message, json.value);
    call.callback = batch.callback;

    // 5. Each item read and its key checked; then, in order, each event's own claim, book step and handlers.
    for (let i = 0; i < batch.items.length; i++) {
      const base = batch.base === '' ? String(i) : `${batch.base}.${String(i)}`;
      const read = readItem(batch.callback, batch.items[i], base);
      if (read.failures.length > 0) call.failures.push(...read.failures);
      const events = keys === undefined ? read.events : checkItemKey(read.events, keys, intake.hasBook, base, call.failures);
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
    if (call.failures.length === 0) return callAnswer(call.outcomes, undefined);
    return keepItems(call).then((kept) => callAnswer(call.outcomes, kept ? undefined : 'store_unavailable'));
  }

  function callAnswer(outcomes: readonly ItemOutcome[], keptReason: ReasonCode | undefined): ReceiveResult {
    // The worst item decides: any 5xx makes the PSP resend the call, and the done items answer as duplicates then.
    let worst: ItemOutcome | undefined;
    for (const outcome of outcomes) {
      const reason = outcome.accepted.reason;
      if (reason !== undefined && reasonStatus[reason] >= 300 && (worst === undefined || worst.accepted.reason === undefined))
        worst = outcome;
    }
    if (worst !== undefined) {
      const result = answer(worst.accepted.reason, {
        event: worst.event,
        ...(worst.accepted.key !== undefined && { key: worst.accepted.key }),
        ...(worst.accepted.hint !== undefined && { hint: worst.accepted.hint }),
      });
      return result;
    }
    if (keptReason !== undefined) return answer(keptReason, { hint: 'an unreadable item could not be kept in the quarantine' });
    // One event: its own reason (duplicate, held…), as the gateway receiver answers; a batch: plain 200.
    if (outcomes.length === 1) {
      const only = outcomes[0]!;
      return answer(only.accepted.reason, { event: only.event, ...(only.accepted.key !== undefined && { key: only.accepted.key }) });
    }
    return answer(undefined);
  }

  function readItem(callback: ApiPixCallback, item: unknown, base: string): { events: ApiPixEvent[]; failures: EssentialFailure[] } {
    if (callback === 'pix') return readPixItem(item, base);
    const read = callback === 'rec' ? recurrenceEvent(item, base) : recurringChargeEvent(item, base);
    return read.ok ? { events: [read.event], failures: [] } : { events: [], failures: [{ path: read.path, message: read.message }] };
  }

  async function whollyInvalid(
    reason: 'json_invalid' | 'payload_invalid',
    call: Call,
    detail: string,
    json?: unknown,
  ): Promise<ReceiveResult> {
    const headers = plainHeaders(call.request.headers);
    await keep({
      reason,
      message: detail,
      bytes: call.bytes,
      headers,
      ...(json !== undefined && { json }),
      receivedAt: new Date().toISOString(),
    });
    const message = reason === 'payload_invalid' ? `The body is not a known API Pix shape: ${detail}` : undefined;
    return answer(reason, { hint: detail, ...(message !== undefined && { message }) });
  }

  async function keepItems(call: Call): Promise<boolean> {
    const message = call.failures.map((failure) => failure.message).join('; ');
    log.warn({ items: call.failures.length, detail: message }, 'pixhook: items of an API Pix call could not be read; kept with the call');
    const headers = plainHeaders(call.request.headers);
    return keep({ reason: 'payload_invalid', message, bytes: call.bytes, headers, json: call.json, receivedAt: new Date().toISOString() });
  }

  /** onInvalid, then the quarantine. True when the call is kept somewhere (or there is nowhere to keep it). */
  async function keep(delivery: InvalidDelivery): Promise<boolean> {
    answers.invalid();
    let handled = false;
    const work = async (): Promise<boolean> => {
      for (const handler of invalidHandlers) {
        try {
          await handler(delivery);
          handled = true;
        } catch (error) {
          log.error({ error: describeError(error) }, 'pixhook: onInvalid failed for an API Pix call');
        }
      }
      if (quarantine === undefined) {
        if (invalidHandlers.length === 0)
          log.error({ detail: delivery.message }, 'pixhook: an unreadable API Pix call was not kept: no quarantine, no onInvalid');
        return handled || invalidHandlers.length === 0;
      }
      try {
        const id = await quarantine.put(delivery);
        log.warn({ quarantineId: id }, 'pixhook: API Pix call quarantined');
        return true;
      } catch (error) {
        log.error({ error: describeError(error) }, 'pixhook: the quarantine failed for an API Pix call');
        return handled;
      }
    };
    return withTimeout(work(), keepInvalidTimeoutMs, 'keeping an unreadable API Pix call').catch(() => handled);
  }

  function finish(result: ReceiveResult, call: Call): ReceiveResult {
    try {
      if (call.journal !== undefined) writer!.add(call.journal, () => callEntry(call, result));
      const ms = performance.now() - call.startedAt;
      answers.answered(result.status, result.reason, ms);
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
  };
  registerInternals(receiver, {
    mode: processing.mode,
    maxBodyBytes,
    hasWaitUntil: processing.hasWaitUntil === true,
    signatureHeader: '',
    processing,
    handle,
    journaled: writer !== undefined,
    peer: true,
    needsTls: auth.needsTls,
    reject: (reason, hint) => {
      const call = new Call(undefined, { headers: {}, body: undefined });
      return finish(answer(reason, hint === undefined ? {} : { hint }), call);
    },
  });
  return receiver;
}

function resolveKeys(keys: unknown): ReadonlySet<string> | undefined {
  if (keys === undefined) return undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((key) => typeof key !== 'string' || key === ''))
    throw new PixhookConfigError('pixhook: `keys` must be a non-empty list of the receiving PIX keys (chaves) as strings.');
  return new Set(keys as string[]);
}

/** One call between the pipeline's steps. */
class Call {
  bytes: Uint8Array = new Uint8Array(0);
  body: string | undefined = undefined;
  json: unknown = undefined;
  readonly events: ApiPixEvent[] = [];
  readonly failures: EssentialFailure[] = [];
  readonly outcomes: ItemOutcome[] = [];
  verified = false;
  callback: ApiPixCallback | undefined = undefined;
  readonly startedAt = performance.now();
  readonly arrivedAt = Date.now();
  constructor(
    readonly journal: JournalRecord | undefined,
    readonly request: ReceiveRequest,
  ) {}
}

/** The call's one journal entry: the body only once authenticated, never the query (it may hold the secret). */
function callEntry(call: Call, result: ReceiveResult): JournalEntry {
  const entry: JournalEntry = {
    id: call.journal!.id,
    at: isoTime(call.arrivedAt),
    verified: call.verified,
    status: result.status,
    bodyBytes: call.bytes.byteLength,
    attempts: [],
  };
  const address = call.request.peer?.address ?? call.request.remoteAddress;
  if (typeof address === 'string' && address !== '') entry.remoteAddress = address;
  if (result.reason !== undefined) entry.reason = result.reason;
  const first = call.outcomes[0]?.event;
  if (first !== undefined) {
    entry.event = first.name;
    entry.resourceId = first.transaction.id;
    entry.amountInCents = first.transaction.amountInCents;
    if (call.outcomes[0]!.accepted.key !== undefined) entry.key = call.outcomes[0]!.accepted.key;
  }
  if (call.outcomes.length > 0) entry.items = call.outcomes.map(journalItem);
  if (call.verified && call.body !== undefined) entry.body = call.body;
  return entry;
}

function journalItem({ event, accepted }: ItemOutcome): JournalItem {
  const item: JournalItem = { event: event.name };
  if (accepted.key !== undefined) item.key = accepted.key;
  if (accepted.reason !== undefined) item.reason = accepted.reason;
  if (event.name === 'pix_received' || event.name === 'pix_refund_updated') {
    item.endToEndId = event.pix.endToEndId;
    if (event.pix.key !== undefined) item.pixKey = event.pix.key;
    if (event.pix.txid !== undefined) item.txid = event.pix.txid;
    item.amountInCents = event.name === 'pix_received' ? event.pix.amountInCents : event.refund.amountInCents;
  } else if (event.name === 'recurring_charge_updated') item.txid = event.recurringCharge.txid;
  return item;
}

function plainHeaders(headers: HeaderSource): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && typeof (headers as { get?: unknown }).get === 'function') {
    (headers as unknown as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (value !== undefined) out[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}
