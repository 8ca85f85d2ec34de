import PQueue from 'p-queue';
import type { PixEventName } from './events/event-names.js';
import type { PixEvent, PixEventOf, UnknownEvent } from './events/event-types.js';
import { normalizeEvent } from './events/normalize-event.js';
import { guardStore, keepClaim } from './guard-store.js';
import { silentLogger } from './logger.js';
import {
  createHandlerRegistry,
  type AckMode,
  type ErrorHandler,
  type EventHandler,
  type HandlerContext,
} from './handler-registry.js';
import { parseJson } from './parse-json.js';
import { PixhookError } from './pixhook-error.js';
import { readHeader, type HeaderSource } from './read-header.js';
import { reasonMessage, reasonStatus, type BodyFailureReason, type ReasonCode } from './reasons.js';
import { createMetricsRecorder, type ReceiverMetrics } from './receiver-metrics.js';
import { resolveOptions, type QueuedEvent, type ReceiverOptions } from './receiver-options.js';
import { parsedBodyHint } from './signature/verify-signature.js';
import { sleep, withTimeout } from './with-timeout.js';

/** The raw body as the adapter has it, or a reader the core calls (with the byte limit) after the method check. */
export type BodySource =
  | Uint8Array
  | ArrayBuffer
  | string
  | null
  | undefined
  | ((limit: number) => Promise<Uint8Array>);

export interface ReceiveRequest {
  /** Anything but POST answers 405. Omit when the framework already routed POST only. */
  method?: string;
  headers: HeaderSource;
  body: BodySource;
  /** Per-request `waitUntil` (e.g. a Worker's `ctx.waitUntil`); overrides the receiver's option. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** What to answer, identical for every adapter; `reason`, `event`, `hint` are for logs. */
export interface ReceiveResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  reason?: ReasonCode;
  /** The public message (also in `body`). */
  message?: string;
  /** Private diagnosis for the merchant's logs: never sent. */
  hint?: string;
  event?: PixEvent | UnknownEvent;
  key?: string;
  /** Set for server misconfiguration (`body_already_parsed`) so frameworks can route it to their error handler. */
  error?: PixhookError;
}

export interface Receiver {
  readonly mode: AckMode;
  readonly maxBodyBytes: number;
  /** True when work after the answer is kept alive by a `waitUntil`. */
  readonly hasWaitUntil: boolean;
  on<N extends PixEventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): Receiver;
  onAny(handler: EventHandler<PixEvent>): Receiver;
  onUnknown(handler: EventHandler<UnknownEvent>): Receiver;
  onError(handler: ErrorHandler): Receiver;
  /** The whole pipeline: verify → parse → normalize → dedupe → dispatch → answer. Never rejects. */
  receive(request: ReceiveRequest): Promise<ReceiveResult>;
  /** The answer for a failure an adapter found before the core could read the body. */
  reject(reason: BodyFailureReason | 'method_not_allowed', hint?: string): ReceiveResult;
  /** Runs a durably queued event's handlers (for workers). Rejects when a handler fails, so the queue retries. */
  handleQueued(job: QueuedEvent, run: { attempt: number; final: boolean }): Promise<void>;
  /** Resolves when every accepted event's handlers have settled (use before shutdown). */
  drain(): Promise<void>;
  metrics(): ReceiverMetrics;
}

const okBody = '{"ok":true}';

export function createReceiver(options: ReceiverOptions): Receiver {
  const config = resolveOptions(options);
  const store = guardStore(config.store, config.storeTimeoutMs);
  const handlers = createHandlerRegistry();
  const metrics = createMetricsRecorder();
  const queue = new PQueue({ concurrency: config.background.concurrency });
  const pending = new Set<Promise<unknown>>();
  const log = config.logger;

  // ── The pipeline, top to bottom ────────────────────────────────────────────────────────────────
  async function pipeline(request: ReceiveRequest): Promise<ReceiveResult> {
    // 1. Only POST carries deliveries.
    if (request.method !== undefined && request.method.toUpperCase() !== 'POST') return answer('method_not_allowed');

    // 2. The exact raw bytes, within the size limit.
    // Bytes already in hand skip an await: most adapters pass them, and every await is a tick.
    const body = typeof request.body === 'function' ? await readBody(request.body) : takeBody(request.body);
    if (!body.ok) {
      const { reason, hint, message } = body;
      return answer(reason, { ...(hint !== undefined && { hint }), ...(message !== undefined && { message }) });
    }

    // 3. The signature, over those bytes, before anything is parsed.
    const verifying = config.verify({
      body: body.bytes,
      signature: readHeader(request.headers, config.signatureHeader),
      secret: config.secrets,
    });
    const signature = verifying instanceof Promise ? await verifying : verifying;
    if (!signature.ok) return answer(signature.reason, signature.hint === undefined ? {} : { hint: signature.hint });

    // 4. JSON, then one of the known shapes.
    const json = parseJson(body.bytes);
    if (!json.ok) return answer('json_invalid');
    const normalized = normalizeEvent(json.value);
    if (!normalized.ok) {
      return answer('payload_invalid', { message: `${reasonMessage.payload_invalid} ${normalized.message}`, hint: normalized.message });
    }
    const event = normalized.event;

    // 5. Unknown names are acknowledged and handed to onUnknown, never to typed handlers.
    if (event.kind === 'unknown') {
      const run = runUnknown(event);
      // Inline waits for onUnknown, but never past the deadline: the answer is 200 either way.
      if (config.mode !== 'inline') keepAlive(run, request);
      else if ((await raceDeadline(run)) === 'timeout') track(run);
      return answer('unknown_event', { event });
    }

    // 6. Claim the dedupe key before any side effect.
    const key = config.dedupeKey(event);
    let claim;
    try {
      const claiming = store.claim(key, config.claimTtlMs);
      claim = typeof claiming === 'string' ? claiming : await claiming;
    } catch (error) {
      return answer('store_unavailable', { event, key, hint: describe(error) });
    }
    if (claim === 'done') return answer('duplicate', { event, key });
    if (claim === 'in_flight') return answer('in_flight', { event, key });

    // 7. Dispatch and acknowledge, as the mode says.
    if (config.mode === 'background') return acknowledgeBackground(event, key, request);
    if (config.mode === 'durable') return acknowledgeDurable(event, key);
    return acknowledgeInline(event, key);
  }

  // ── Acknowledgement modes ──────────────────────────────────────────────────────────────────────
  async function acknowledgeInline(event: PixEvent, key: string): Promise<ReceiveResult> {
    const run = runOnce(event, key);
    const outcome = await raceDeadline(run);
    if (outcome === 'ok') return answer(undefined, { event, key });
    if (outcome === 'failed') return answer('handler_failed', { event, key });
    track(run); // It finishes on its own: success completes the key, failure releases it.
    return answer('handler_timeout', { event, key });
  }

  /** The run's result, or 'timeout' once `deadlineMs` passed (the run goes on). One promise: cheaper than Promise.race. */
  function raceDeadline<T>(run: Promise<T>): Promise<T | 'timeout'> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, config.deadlineMs, 'timeout');
      void run.then((result) => {
        clearTimeout(timer);
        resolve(result);
      });
    });
  }

  async function acknowledgeBackground(event: PixEvent, key: string, request: ReceiveRequest): Promise<ReceiveResult> {
    if (queue.size + queue.pending >= config.background.maxQueued) {
      await releaseQuietly(key);
      return answer('queue_full', { event, key });
    }
    keepAlive(queue.add(() => runWithRetries(event, key)), request);
    return answer(undefined, { event, key });
  }

  async function acknowledgeDurable(event: PixEvent, key: string): Promise<ReceiveResult> {
    try {
      const job: QueuedEvent = { key, name: event.name, payload: event.payload, receivedAt: new Date().toISOString() };
      await withTimeout(config.queue!.enqueue(job), config.storeTimeoutMs, 'enqueue');
    } catch (error) {
      await releaseQuietly(key);
      return answer('enqueue_failed', { event, key, hint: describe(error) });
    }
    // Durably queued is as good as processed for the sender: duplicates from now on answer 200.
    try {
      await store.complete(key, config.dedupeTtlMs);
    } catch (error) {
      log.warn({ key, error: describe(error) }, 'pixhook: could not mark a queued event done; the queue job id still dedupes it');
    }
    return answer(undefined, { event, key });
  }

  // ── Running handlers ───────────────────────────────────────────────────────────────────────────
  /** One run that settles the claim: completed on success, released on failure. Never rejects. */
  async function runOnce(event: PixEvent, key: string): Promise<'ok' | 'failed'> {
    const stopKeeping = keepClaim(store, key, config.claimTtlMs);
    const context: HandlerContext = { key, attempt: 1, mode: config.mode };
    try {
      await handlers.dispatch(event, context);
    } catch (error) {
      stopKeeping();
      await fail(event, key, error, 1);
      return 'failed';
    }
    stopKeeping();
    await succeed(key);
    return 'ok';
  }

  async function runWithRetries(event: PixEvent, key: string): Promise<void> {
    const { attempts, backoffMs, backoffFactor } = config.background;
    const stopKeeping = keepClaim(store, key, config.claimTtlMs);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await handlers.dispatch(event, { key, attempt, mode: config.mode });
        } catch (error) {
          metrics.failed();
          if (attempt >= attempts) {
            await fail(event, key, error, attempt, false);
            return;
          }
          log.warn({ key, event: event.name, attempt, error: describe(error) }, 'pixhook: handler failed; retrying');
          await sleep(backoffMs * backoffFactor ** (attempt - 1));
          continue;
        }
        await succeed(key);
        return;
      }
    } finally {
      stopKeeping();
    }
  }

  async function succeed(key: string): Promise<void> {
    metrics.handled();
    try {
      const completing = store.complete(key, config.dedupeTtlMs);
      if (completing) await completing;
    } catch (error) {
      // Handled already: answering an error would only make the sender run it again.
      log.error({ key, error: describe(error) }, 'pixhook: could not mark an event done; its claim will expire');
    }
  }

  async function fail(event: PixEvent, key: string, error: unknown, attempt: number, count = true): Promise<void> {
    if (count) metrics.failed();
    await releaseQuietly(key);
    log.error({ key, event: event.name, attempt, error: describe(error) }, 'pixhook: handler failed');
    await handlers.reportError({ error, event, key, attempt, mode: config.mode });
  }

  async function runUnknown(event: UnknownEvent): Promise<void> {
    try {
      await handlers.dispatchUnknown(event, { attempt: 1, mode: config.mode });
    } catch (error) {
      log.error({ event: event.name, error: describe(error) }, 'pixhook: onUnknown handler failed');
      await handlers.reportError({ error, event, attempt: 1, mode: config.mode });
    }
  }

  async function releaseQuietly(key: string): Promise<void> {
    try {
      await store.release(key);
    } catch (error) {
      log.error({ key, error: describe(error) }, 'pixhook: could not release a claim; it will expire');
    }
  }

  function keepAlive(work: Promise<unknown>, request: ReceiveRequest): void {
    track(work);
    (request.waitUntil ?? config.waitUntil)?.(work);
  }

  function track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
  }

  // ── Reading the body ───────────────────────────────────────────────────────────────────────────
  type BodyRead = { ok: true; bytes: Uint8Array } | { ok: false; reason: BodyFailureReason; hint?: string; message?: string };

  async function readBody(reader: (limit: number) => Promise<Uint8Array>): Promise<BodyRead> {
    let bytes: Uint8Array;
    try {
      bytes = await reader(config.maxBodyBytes);
    } catch (error) {
      if (error instanceof PixhookError && isBodyReason(error.code)) {
        const read: BodyRead = { ok: false, reason: error.code };
        if (error.cause !== undefined) read.hint = describe(error.cause);
        // An adapter's reader knows its framework's fix (e.g. Next's `bodyParser: false`); keep it.
        if (error.code === 'body_already_parsed' && error.message !== `${error.code}: ${reasonMessage[error.code]}`) {
          read.message = error.message.slice(error.code.length + 2);
        }
        return read;
      }
      return { ok: false, reason: 'body_unreadable', hint: describe(error) };
    }
    return withinLimit(bytes);
  }

  function takeBody(source: Exclude<BodySource, (limit: number) => Promise<Uint8Array>>): BodyRead {
    if (source instanceof Uint8Array) return withinLimit(source);
    if (source instanceof ArrayBuffer) return withinLimit(new Uint8Array(source));
    if (typeof source === 'string') return withinLimit(new TextEncoder().encode(source));
    if (source === null || source === undefined) return withinLimit(new Uint8Array(0));
    return { ok: false, reason: 'body_already_parsed', hint: parsedBodyHint };
  }

  function withinLimit(bytes: Uint8Array): BodyRead {
    return bytes.byteLength > config.maxBodyBytes ? { ok: false, reason: 'body_too_large' } : { ok: true, bytes };
  }

  // ── Answers ────────────────────────────────────────────────────────────────────────────────────
  function answer(
    reason: ReasonCode | undefined,
    extra: { event?: PixEvent | UnknownEvent; key?: string; message?: string; hint?: string } = {},
  ): ReceiveResult {
    const status = reason === undefined ? 200 : reasonStatus[reason];
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
    if (status === 503) headers['retry-after'] = String(config.retryAfterSeconds);
    if (reason === 'method_not_allowed') headers['allow'] = 'POST';
    const result: ReceiveResult = { status, headers, body: okBody, ...extra };
    if (reason === undefined) return result;
    result.reason = reason;
    if (status < 300) {
      result.body = JSON.stringify({ ok: true, reason });
      return result;
    }
    const message = extra.message ?? reasonMessage[reason];
    result.message = message;
    if (reason === 'body_already_parsed') {
      result.error = new PixhookError(reason, extra.message ?? `${reasonMessage.body_already_parsed} ${bodyParsedFix}`);
      result.message = result.error.message.slice(reason.length + 2);
    }
    result.body = JSON.stringify({ error: reason, message: result.message });
    return result;
  }

  function finish(result: ReceiveResult, startedAt: number): ReceiveResult {
    const ms = performance.now() - startedAt;
    metrics.answered(result.status, result.reason, ms);
    // The default logger drops everything: skip building its fields on every delivery.
    if (log === silentLogger) return result;
    const fields = logFields(result, ms);
    if (result.status >= 500) log.error(fields, 'pixhook: delivery');
    else if (result.status >= 300) log.warn(fields, 'pixhook: delivery');
    else log.info(fields, 'pixhook: delivery');
    return result;
  }

  const receiver: Receiver = {
    mode: config.mode,
    maxBodyBytes: config.maxBodyBytes,
    hasWaitUntil: config.waitUntil !== undefined,
    on(name, handler) {
      handlers.on(name, handler);
      return receiver;
    },
    onAny(handler) {
      handlers.onAny(handler);
      return receiver;
    },
    onUnknown(handler) {
      handlers.onUnknown(handler);
      return receiver;
    },
    onError(handler) {
      handlers.onError(handler);
      return receiver;
    },
    async receive(request) {
      const startedAt = performance.now();
      let result: ReceiveResult;
      try {
        result = await pipeline(request);
      } catch (error) {
        // Only a bug (ours, or a custom dedupeKey/store) lands here; the process must not crash on it.
        result = answer('internal_error', { hint: describe(error) });
      }
      return finish(result, startedAt);
    },
    reject(reason, hint) {
      return finish(answer(reason, hint === undefined ? {} : { hint }), performance.now());
    },
    async handleQueued(job, run) {
      const normalized = normalizeEvent(job.payload);
      if (!normalized.ok || normalized.event.kind === 'unknown') {
        throw new PixhookError('payload_invalid', `queued job ${job.key} no longer normalizes`);
      }
      try {
        await handlers.dispatch(normalized.event, { key: job.key, attempt: run.attempt, mode: config.mode });
      } catch (error) {
        metrics.failed();
        if (run.final) {
          metrics.deadLettered();
          log.error({ key: job.key, event: job.name, attempt: run.attempt, error: describe(error) }, 'pixhook: dead-lettered');
          await handlers.reportError({ error, event: normalized.event, key: job.key, attempt: run.attempt, mode: config.mode });
        }
        throw error;
      }
      metrics.handled();
    },
    async drain() {
      while (pending.size > 0 || queue.size > 0 || queue.pending > 0) {
        await Promise.all([...pending, queue.onIdle()]);
      }
    },
    metrics: () => metrics.snapshot(),
  };
  return receiver;
}

const bodyParsedFix =
  'Mount the pixhook handler before any JSON body parser (e.g. before app.use(express.json())), ' +
  'or give it the raw bytes: express.raw({ type: "application/json" }) on this route, or ' +
  'express.json({ verify: (req, _res, buf) => { req.rawBody = buf } }).';

function isBodyReason(code: ReasonCode): code is BodyFailureReason {
  return code === 'body_too_large' || code === 'body_already_parsed' || code === 'body_unreadable';
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function logFields(result: ReceiveResult, ms: number): Record<string, unknown> {
  const event = result.event;
  const resource = event?.kind === 'transaction' ? event.transaction : event?.kind === 'transfer' ? event.transfer : undefined;
  return {
    status: result.status,
    reason: result.reason ?? 'handled',
    ...(event && { event: event.name }),
    ...(resource && { resourceId: resource.id, resourceStatus: resource.status }),
    ...(result.key && { key: result.key }),
    ...(result.hint && { hint: result.hint }),
    durationMs: Math.round(ms * 1000) / 1000,
  };
}
