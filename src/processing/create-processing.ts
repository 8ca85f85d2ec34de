import { createClaimKeeper } from '../dedupe/claim-keeper.js';
import { guardStore } from '../dedupe/guard-store.js';
import type { PixEventName } from '../events/event-names.js';
import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { ClaimResult } from '../dedupe/dedupe-store.js';
import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import type { PixEvent, PixEventOf, UnknownEvent } from '../events/event-types.js';
import { normalizeEvent } from '../events/normalize-event.js';
import { createProcessingMetrics, type ProcessingMetrics } from '../metrics/receiver-metrics.js';
import { describeError } from '../shared/describe-error.js';
import { maxDelayMs } from '../shared/option-checks.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { ProcessingReason } from '../shared/reasons.js';
import { createBackgroundRunner } from './background-mode.js';
import { acknowledgeDurable } from './durable-mode.js';
import { createHandlerRegistry, registrationOf, type ErrorHandler, type EventHandler } from './handler-registry.js';
import { acknowledgeInline, raceDeadline } from './inline-mode.js';
import { createProcessingKernel } from './processing-kernel.js';
import { resolveProcessingOptions, type AckMode, type ProcessingOptions, type QueuedEvent } from './processing-options.js';
import { runTracedAttempt } from './traced-attempt.js';

/** What processing did with an event. No `reason`: handled (inline) or accepted (background, durable). */
export interface AcceptResult {
  reason?: ProcessingReason;
  key?: string;
  /** Private diagnosis for logs (never sent to the gateway). */
  hint?: string;
}

export interface AcceptOptions {
  /** Keeps background work alive after the answer (a Worker's `ctx.waitUntil`); overrides the option. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** The verified body as received; durable mode queues it. Default: the event's payload as JSON. */
  body?: string;
  /** Trace context to carry into a durable job. */
  trace?: Record<string, string>;
}

/**
 * The handlers and what runs them: dedupe claim, dispatch, acknowledgement mode, retries, time
 * limits and error reporting. No secret and no HTTP: the receiver, the durable worker, replays and
 * the reconciler all hand events to one `Processing`.
 */
export interface Processing {
  readonly mode: AckMode;
  /** The store's quarantine (Redis and Postgres stores have one): a receiver sharing this processing keeps invalid bodies there. */
  readonly quarantine?: QuarantineStore;
  /** True when work after the answer is kept alive by a `waitUntil` option. */
  readonly hasWaitUntil?: boolean;
  on<N extends PixEventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): Processing;
  onAny(handler: EventHandler<PixEvent>): Processing;
  onUnknown(handler: EventHandler<UnknownEvent>): Processing;
  onError(handler: ErrorHandler): Processing;
  /** Claims the event's dedupe key, then dispatches it as the mode says. Never rejects. */
  accept(event: PixEvent | UnknownEvent, options?: AcceptOptions): Promise<AcceptResult>;
  /** `accept`, answering synchronously when the store and the handlers did (the receiver's fast path). Never throws. */
  acceptNow(event: PixEvent | UnknownEvent, options?: AcceptOptions): AcceptResult | Promise<AcceptResult>;
  /** Runs one durably queued job's handlers (the durable worker calls this). Rejects when they fail, so the queue retries. */
  runQueued(job: QueuedEvent, run: { attempt: number; final: boolean }): Promise<void>;
  /**
   * Resolves `true` when every accepted run has settled, or `false` after `timeoutMs` (default: the
   * longest a run can take: attempts × handlerTimeoutMs plus backoff, or the deadline for inline).
   */
  drain(options?: { timeoutMs?: number }): Promise<boolean>;
  metrics(): ProcessingMetrics;
  /** Handlers registered for known events (`on`, `onAny`); a durable worker with none is refused. */
  handlerCount(): number;
}

let ownerSeq = 0;
// One random prefix per process, then a counter: unique owners without a random UUID per event.
const ownerPrefix = `${Math.random().toString(36).slice(2, 10)}.`;
const noOptions: AcceptOptions = {};

function acceptFailed(error: unknown): AcceptResult {
  return { reason: 'internal_error', hint: describeError(error) };
}

function storeUnavailable(key: string, error: unknown): AcceptResult {
  return { reason: 'store_unavailable', key, hint: describeError(error) };
}

function inlineResult(key: string, reason: ProcessingReason | undefined): AcceptResult {
  return reason === undefined ? { key } : { key, reason };
}

export function createProcessing(options: ProcessingOptions = {}): Processing {
  const config = resolveProcessingOptions(options);
  const store = guardStore(config.store, config.storeTimeoutMs);
  const keeper = createClaimKeeper(store, config.claimTtlMs);
  const handlers = createHandlerRegistry();
  const metrics = createProcessingMetrics();
  const pending = new Set<Promise<unknown>>();
  const kernel = createProcessingKernel({ config, store, keeper, handlers, metrics, pending });
  const background = config.mode === 'background' ? createBackgroundRunner(kernel) : undefined;
  const log = config.logger;
  const currentTrace = (): Record<string, string> | undefined => {
    try {
      return config.telemetry?.currentTrace();
    } catch {
      return undefined;
    }
  };

  // Synchronous until something is really asynchronous (a remote store, an async handler): each
  // await is a tick, and an in-process store with a synchronous handler needs none.
  function acceptKnown(event: PixEvent, options: AcceptOptions): AcceptResult | Promise<AcceptResult> {
    // 1. The key, then the claim, before any side effect.
    const key = config.dedupeKey(event);
    if (typeof key !== 'string' || key === '') throw new PixhookError('internal_error', 'dedupeKey must return a non-empty string');
    const owner = ownerPrefix + ++ownerSeq;
    let claiming;
    try {
      claiming = store.claim(key, owner, config.claimTtlMs);
    } catch (error) {
      return storeUnavailable(key, error);
    }
    if (typeof claiming === 'string') return claimed(event, options, key, owner, claiming);
    return claiming.then(
      (result) => claimed(event, options, key, owner, result),
      (error: unknown) => storeUnavailable(key, error),
    );
  }

  function claimed(event: PixEvent, options: AcceptOptions, key: string, owner: string, claimed: ClaimResult): AcceptResult | Promise<AcceptResult> {
    if (claimed === 'done') return { reason: 'duplicate', key };
    if (claimed === 'in_flight') return { reason: 'in_flight', key };
    // Inline: a synchronous run settles the claim in this same turn, so renewal starts only if it goes async.
    const claim = background || config.mode === 'durable' ? keeper.hold(key, owner) : keeper.holdLazily(key, owner);
    // The delivery's trace context, so the handler span links to it even when it runs later.
    const link = options.trace ?? currentTrace();

    // 2. Dispatch and acknowledge, as the mode says.
    if (background) return background.acknowledge(event, claim, options.waitUntil, link).then((reason) => ({ key, ...(reason && { reason }) }));
    if (config.mode === 'durable') {
      const body = options.body ?? JSON.stringify(event.payload);
      return acknowledgeDurable(kernel, event, claim, body, link).then((result) => ({ key, ...result }));
    }
    const acknowledged = acknowledgeInline(kernel, event, claim as HeldClaim & { later(): void }, options.waitUntil, link);
    return acknowledged instanceof Promise ? acknowledged.then((reason) => inlineResult(key, reason)) : inlineResult(key, acknowledged);
  }

  /** Unknown names are acknowledged and handed to onUnknown, never to typed handlers; not deduplicated. */
  async function acceptUnknown(event: UnknownEvent, options: AcceptOptions): Promise<AcceptResult> {
    const run = Promise.resolve(
      runTracedAttempt(
        { handlers, event, attempt: 1, mode: config.mode, source: event.source ?? 'webhook', limitMs: config.handlerTimeoutMs },
        config.telemetry,
        options.trace ?? currentTrace(),
      ),
    ).then((outcome) => {
      if (outcome.ok) return;
      metrics.failed(outcome);
      return kernel.fail(event, undefined, outcome, 1);
    });
    // Inline waits for onUnknown, but never past the deadline: the answer is 200 either way.
    if (config.mode !== 'inline') kernel.keepAlive(run, options.waitUntil);
    else if ((await raceDeadline(run, config.deadlineMs)) === 'deadline') kernel.keepAlive(run, options.waitUntil);
    return { reason: 'unknown_event' };
  }

  const processing: Processing = {
    mode: config.mode,
    ...(config.store.quarantine && { quarantine: config.store.quarantine }),
    hasWaitUntil: config.waitUntil !== undefined,
    ...registrationOf(() => processing, handlers),
    async accept(event, options = {}) {
      return processing.acceptNow(event, options);
    },
    acceptNow(event, options = noOptions) {
      try {
        const result = event.kind === 'unknown' ? acceptUnknown(event, options) : acceptKnown(event, options);
        return result instanceof Promise ? result.catch(acceptFailed) : result;
      } catch (error) {
        // Only a bug (ours, or a custom dedupeKey/store) lands here; the process must not crash on it.
        return acceptFailed(error);
      }
    },
    async runQueued(job, run) {
      const event = readQueued(job);
      const outcome = await runTracedAttempt(
        { handlers, event, attempt: run.attempt, mode: 'durable', source: event.source ?? job.source ?? 'webhook', limitMs: config.queuedHandlerTimeoutMs, key: job.key },
        config.telemetry,
        job.trace,
      );
      if (outcome.ok) {
        if (outcome.duplicate) metrics.duplicate();
        else metrics.handled();
        return;
      }
      metrics.failed(outcome);
      if (run.final) {
        metrics.deadLettered();
        log.error({ key: job.key, event: job.name, attempt: run.attempt, error: describeError(outcome.error) }, 'pixhook: dead-lettered');
        await handlers.reportError({ error: outcome.error, event, key: job.key, attempt: run.attempt, mode: 'durable' });
      }
      throw outcome.error instanceof Error ? outcome.error : new PixhookError('handler_failed', describeError(outcome.error));
    },
    async drain(options = {}) {
      const { attempts, backoffMs, backoffFactor } = config.background;
      const worstRun =
        config.mode === 'background'
          ? attempts * config.handlerTimeoutMs + backoffMs * ((backoffFactor ** attempts - 1) / Math.max(1e-9, backoffFactor - 1))
          : config.handlerTimeoutMs;
      const giveUpAt = Date.now() + (options.timeoutMs ?? worstRun);
      while (pending.size > 0 || (background?.size ?? 0) > 0) {
        const left = giveUpAt - Date.now();
        if (left <= 0) return false;
        const settled = Promise.all([...pending, background?.onIdle()]);
        // One wait stays within a timer's range; the loop waits again until `giveUpAt`.
        if ((await raceDeadline(settled, Math.min(left, maxDelayMs))) === 'deadline' && left <= maxDelayMs) return false;
      }
      return true;
    },
    metrics: () => metrics.snapshot(),
    handlerCount: () => handlers.handlerCount(),
  };
  return processing;
}

/** A queued job's event, read again from the verified bytes it carries. */
function readQueued(job: QueuedEvent): PixEvent {
  let value: unknown = job.payload;
  if (typeof job.body === 'string') {
    try {
      value = JSON.parse(job.body);
    } catch {
      throw new PixhookError('payload_invalid', `queued job ${job.key} does not hold JSON`);
    }
  }
  const normalized = normalizeEvent(value, { source: job.source ?? 'webhook' });
  if (!normalized.ok || normalized.event.kind === 'unknown') {
    throw new PixhookError('payload_invalid', `queued job ${job.key} no longer normalizes`);
  }
  return normalized.event;
}
