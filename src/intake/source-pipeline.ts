import type { PixEvent, PspTransactionEvent, UnknownEvent } from '../events/event-types.js';
import { callEntry, deliveryEntry } from '../journal/entries.js';
import type { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import type { AcceptResult } from '../processing/create-processing.js';
import type { deliveryProcessingOf } from '../processing/delivery-context.js';
import { describeError } from '../shared/describe-error.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import type { HeaderSource } from '../shared/read-header.js';
import type { BodyCheck, Fetched, Hint, Source, Verdict } from '../sources/source.js';
import { batchAnswer } from './batch-answer.js';
import { parseJson, readBody, takeBody, type BodyRead } from './read-body.js';
import type { createAnswers, ReceiveResult } from './receive-answer.js';
import type { ChunkCheck, ReceiveRequest } from './receiver-types.js';
import { SourceDelivery } from './source-delivery.js';

/** Where a source's unreadable bodies go (`onInvalid`, then the quarantine), with their bytes. */
export interface SourceKeeper {
  /** A body that is not JSON, or not the source's shape at all (or a fetched 404): kept whole. */
  whole(delivery: SourceDelivery, reason: 'json_invalid' | 'payload_invalid', detail: string): Promise<void>;
  /** The unreadable items beside readable ones; false when they could be kept nowhere. */
  items(delivery: SourceDelivery): Promise<boolean>;
}

interface SourcePipelineParts {
  readonly intake: ReturnType<typeof deliveryProcessingOf>;
  readonly answer: ReturnType<typeof createAnswers>;
  readonly answers: Pick<ReturnType<typeof createAnswerMetrics>, 'answered'>;
  readonly keep: SourceKeeper;
  readonly maxBodyBytes: number;
  /** The bound of a source's fetches (`fetch`), every hint of a delivery together. */
  readonly fetchTimeoutMs: number;
  /** The delivery's log line (or the refusal's warning), after its answer was counted and journaled. Guarded. */
  readonly report: (result: ReceiveResult, ms: number, delivery: SourceDelivery) => void;
  /** Hears each event as read, before its claim (the gateway's receiver logs fields of an unexpected type). */
  readonly onRead?: ((event: PixEvent | UnknownEvent) => void) | undefined;
}

/**
 * A source's pipeline: method → the source's authentication (before the body) → bytes (hashed as they
 * arrive where the body is signed) → JSON → the source's reader → the source's API where the body is only a
 * hint (bounded; 503 when it cannot answer, nothing claimed) → each event's claim, book step and handlers,
 * in order → one answer (the worst item decides), journaled as one entry. Synchronous until a step really
 * is asynchronous; each step hands the next the delivery, so the synchronous path makes no closure.
 */
export function sourcePipeline(
  source: Source,
  parts: SourcePipelineParts,
): {
  handle: (request: ReceiveRequest, check?: ChunkCheck) => MaybePromise<ReceiveResult>;
  /** The answer to a failure an adapter found before the body (journaled with the request it names). */
  reject: (result: ReceiveResult, request: ReceiveRequest) => ReceiveResult;
  /** The source's body check for an adapter that reads a stream (`ReceiverInternals.bodyCheck`); absent without one. */
  streamCheck: ((headers: HeaderSource) => ChunkCheck | undefined) | undefined;
} {
  const { intake, answer, answers, keep, maxBodyBytes, fetchTimeoutMs, report, onRead } = parts;
  const writer = intake.journalWriter;
  const profile = source.provider;
  const { single } = source;
  const bodyCheck = source.bodyCheck?.bind(source);

  function refused(verdict: Verdict & { ok: false }): ReceiveResult {
    return answer(verdict.reason, {
      ...(verdict.hint !== undefined && { hint: verdict.hint }),
      ...(verdict.message !== undefined && { message: verdict.message }),
    });
  }

  function pipeline(delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    const { request } = delivery;
    // 1. Only POST carries deliveries.
    if (request.method !== undefined && request.method !== 'POST' && request.method.toUpperCase() !== 'POST')
      return answer('method_not_allowed');
    // 2. The source's authentication: headers, URL and connection, before a byte of the body is read.
    return andThen(source.authenticate(delivery), authenticated, undefined, delivery);
  }

  function authenticated(verdict: Verdict, delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    if (!verdict.ok) return refused(verdict);
    // Authenticated by who calls (a token, a certificate, a URL secret): verified before the body.
    if (bodyCheck === undefined) delivery.verified = true;
    // 3. The exact bytes, within the limit.
    const { body } = delivery.request;
    if (typeof body === 'function') return readBody(body, maxBodyBytes).then((read) => withBody(read, delivery));
    return withBody(takeBody(body, maxBodyBytes), delivery);
  }

  function withBody(body: BodyRead, delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    if (!body.ok)
      return answer(body.reason, {
        ...(body.hint !== undefined && { hint: body.hint }),
        ...(body.message !== undefined && { message: body.message }),
      });
    delivery.bytes = body.bytes;
    // 4. A signed body: its hash over the exact bytes, fed chunk by chunk by an adapter that read a stream
    //    (`streamCheck`), or here as one chunk.
    if (bodyCheck === undefined) return verified(delivery);
    let check = delivery.check;
    if (check === undefined) {
      check = bodyCheck(delivery);
      check.update(body.bytes);
    }
    return andThen(check.end(), bodyChecked, undefined, delivery);
  }

  function bodyChecked(verdict: Verdict, delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    return verdict.ok ? verified(delivery) : refused(verdict);
  }

  function verified(delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    delivery.verified = true;
    // 5. JSON, then the source's reader. A body we cannot read at all is kept and answered 400.
    const json = parseJson(delivery.bytes);
    if (!json.ok) return keep.whole(delivery, 'json_invalid', json.message).then(() => answer('json_invalid', { hint: json.message }));
    delivery.text = json.text;
    delivery.json = json.value;
    const read = source.read(json.value, delivery);
    const { invalid, events, hints, failures } = read;
    if (invalid !== undefined)
      return keep
        .whole(delivery, 'payload_invalid', invalid.detail)
        .then(() => answer('payload_invalid', { hint: invalid.detail, message: invalid.message }));
    // 6. One event and nothing else (the common delivery; a `single` source's unknown name too): no list is made.
    if (hints.length === 0 && failures.length === 0) {
      const only = events.length === 1 ? events[0] : events.length === 0 ? read.unknown : undefined;
      if (only !== undefined) return acceptOne(only, delivery);
    }
    for (const event of events) delivery.events.push(event as PspTransactionEvent);
    if (failures.length > 0) delivery.failures.push(...failures);
    if (events.length === 0 && hints.length === 0 && source.batch !== true) {
      if (failures.length === 0) return answer('unknown_event');
      const detail = failures.map((failure) => failure.message).join('; ');
      return keep.whole(delivery, 'payload_invalid', detail).then(() => answer('payload_invalid', { hint: detail }));
    }
    if (hints.length === 0) return andThen(runEvents(delivery, 0), afterEvents, undefined, delivery);
    // 7. Where the body is only a hint, the source's API decides: every hint fetched before the first claim.
    return fetchAll(hints, delivery);
  }

  /** The delivery's one event: its claim, book step and handlers, the delivery itself as processing's context. */
  function acceptOne(event: PixEvent | UnknownEvent, delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    onRead?.(event);
    delivery.event = event;
    // The whole body is the event (the gateway's): durable mode queues the verified text as received.
    if (event.payload === delivery.json) delivery.body = delivery.text;
    return andThen(intake.acceptDelivery(event, delivery), answered, undefined, delivery);
  }

  /** One event's answer: its own reason (duplicate, held…), key and hint, as a call of one item is answered. */
  function answered(accepted: AcceptResult, delivery: SourceDelivery): ReceiveResult {
    delivery.accepted = accepted;
    const result = answer(accepted.reason);
    result.event = delivery.event;
    if (accepted.key !== undefined) result.key = accepted.key;
    if (accepted.hint !== undefined) result.hint = accepted.hint;
    return result;
  }

  async function fetchAll(hints: Hint[], delivery: SourceDelivery): Promise<ReceiveResult> {
    // A controller and a timer cleared once every fetch settled: AbortSignal.timeout costs ~7 µs a call on Node 20.
    const bound = new AbortController();
    const timer = setTimeout(() => bound.abort(new DOMException('The fetch timed out.', 'TimeoutError')), fetchTimeoutMs);
    const fetched = await Promise.all(
      hints.map((hint) =>
        source.fetch!(hint, bound.signal).catch((error: unknown): Fetched => ({ status: 'unavailable', hint: describeError(error) })),
      ),
    ).finally(() => clearTimeout(timer));
    const unavailable = fetched.find((one) => one.status === 'unavailable');
    if (unavailable !== undefined) return answer('gateway_unavailable', { hint: unavailable.hint });
    const missing: string[] = [];
    for (const one of fetched) {
      if (one.status === 'events')
        for (const event of one.events) {
          delivery.events.push(event as PspTransactionEvent);
          // The confirmed state, journaled beside the hint: what a replay re-runs, with no credentials.
          (delivery.confirmed ??= []).push({
            record: event.payload,
            ...(event.deliveryId !== undefined && { deliveryId: event.deliveryId }),
          });
        }
      else if (one.status === 'not_found') missing.push(one.hint);
    }
    // A 404 is kept with the body, never dispatched: the PSP (or a forger with the URL secret) named a record that is not there.
    if (missing.length > 0) await keep.whole(delivery, 'payload_invalid', `not found at ${source.provider}: ${missing.join('; ')}`);
    return andThen(runEvents(delivery, 0), afterEvents, undefined, delivery);
  }

  /**
   * Accepts `delivery.events[from…]` one after another; synchronous while processing answers synchronously. The
   * delivery is each one's context, without `body`: processing queues the event's own payload (durable mode).
   */
  function runEvents(delivery: SourceDelivery, from: number): MaybePromise<void> {
    for (let i = from; i < delivery.events.length; i++) {
      const event = delivery.events[i]!;
      onRead?.(event);
      const accepted = intake.acceptDelivery(event, delivery);
      if (isPromise(accepted))
        return accepted.then((result) => {
          delivery.outcomes.push({ event, accepted: result });
          return runEvents(delivery, i + 1);
        });
      delivery.outcomes.push({ event, accepted });
    }
    return undefined;
  }

  function afterEvents(_: void, delivery: SourceDelivery): MaybePromise<ReceiveResult> {
    // 8. Unreadable items beside readable ones: kept with the bytes. A resend cannot mend them, so once kept
    //    they do not hold the answer (the sender would resend the readable items forever).
    if (delivery.failures.length === 0 || (delivery.outcomes.length === 0 && source.batch !== true))
      return batchAnswer(answer, delivery.outcomes, undefined);
    return keep.items(delivery).then((kept) => batchAnswer(answer, delivery.outcomes, kept ? undefined : 'store_unavailable'));
  }

  function finish(result: ReceiveResult, delivery: SourceDelivery): ReceiveResult {
    try {
      if (delivery.journal !== undefined) journal(delivery, result);
      const ms = performance.now() - delivery.startedAt;
      answers.answered(result.status, result.reason, ms);
      report(result, ms, delivery);
    } catch {
      // Logging and journaling are guarded; this is the last line of "receive() never rejects".
    }
    return result;
  }

  /** Queues the delivery's entry: built and written after the answer, never holding it. */
  function journal(delivery: SourceDelivery, result: ReceiveResult): void {
    writer!.add(
      delivery.journal!,
      single === undefined ? () => callEntry(delivery, result, profile) : () => deliveryEntry(delivery, result, single.signatureHeader),
    );
  }

  function failed(error: unknown, delivery: SourceDelivery): ReceiveResult {
    return finish(answer('internal_error', { hint: describeError(error) }), delivery);
  }

  /** The pipeline, its answer counted, logged and journaled. Never throws or rejects. */
  const handle = (request: ReceiveRequest, check?: ChunkCheck): MaybePromise<ReceiveResult> => {
    const delivery = new SourceDelivery(request, writer);
    // Only this pipeline's `streamCheck` makes the checks an adapter hands back (the kit drops it on a wrapped receiver).
    if (check !== undefined) delivery.check = check as BodyCheck;
    let running: MaybePromise<ReceiveResult>;
    try {
      running = pipeline(delivery);
    } catch (error) {
      // Only a bug lands here; the process must not crash on it.
      return failed(error, delivery);
    }
    return andThen(running, finish, failed, delivery);
  };

  /**
   * Started with the headers before the first byte, fed every kept chunk by the adapter, judged by `withBody`
   * after authentication. Undefined where the check cannot start (its header missing: `authenticate` refuses)
   * or the source says feeding it gains nothing (`Source.streamCheck`).
   */
  const given = source.streamCheck;
  const start =
    given === false ? undefined : (given ?? (bodyCheck === undefined ? undefined : (headers: HeaderSource) => bodyCheck({ headers })));
  const streamCheck =
    start === undefined
      ? undefined
      : (headers: HeaderSource): BodyCheck | undefined => {
          try {
            return start(headers);
          } catch {
            return undefined;
          }
        };

  const reject = (result: ReceiveResult, request: ReceiveRequest): ReceiveResult => finish(result, new SourceDelivery(request, writer));

  return { handle, reject, streamCheck };
}
