import type { PaymentBook, RecordResult, ReleaseResult } from '../book/payment-book.js';
import type { Violation } from '../events/violation.js';
import { joinedClaimOf, type JoinedClaim } from '../book/joined-claim.js';
import { confirmWithGateway, type ConfirmOutcome } from '../book/confirm-with-gateway.js';
import { createDisputeAlerts } from '../book/dispute-alerts.js';
import { createClaimKeeper } from '../dedupe/claim-keeper.js';
import type { ClaimResult } from '../dedupe/dedupe-store.js';
import { guardStore } from '../dedupe/guard-store.js';
import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import type { PixEventName } from '../events/event-names.js';
import type { PixEvent, PixEventOf, UnknownEvent } from '../events/event-types.js';
import { normalizeEvent } from '../events/normalize-event.js';
import { createProcessingMetrics, type ProcessingMetrics } from '../metrics/receiver-metrics.js';
import { describeError } from '../shared/describe-error.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import { maxDelayMs } from '../shared/option-checks.js';
import { PixhookConfigError, PixhookError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { ProcessingReason } from '../shared/reasons.js';
import type { Acknowledgement, ClaimedRun } from './acknowledgement.js';
import { createBackgroundMode } from './background-mode.js';
import { createDurableMode } from './durable-mode.js';
import { createHandlerRegistry, registrationOf, type ErrorHandler, type EventHandler, type ViolationHandler } from './handler-registry.js';
import { resolveProcessingOptions, type AckMode, type ProcessingOptions, type QueuedEvent } from './processing-options.js';
import { runAttempt, type AttemptOutcome, type FailedAttempt } from './run-attempt.js';
import { JournalWriter, registerJournalWriter, type JournalRecord } from '../journal/journal-writer.js';
import { journalRecordOf, journalReplay, timedAttempt, timedRelease } from './journal-hook.js';

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
  /**
   * Marks a replay (of a quarantined body, a dead letter…): with a `journal`, the run is recorded as a
   * delivery of its own whose `replayOf` is this (e.g. the quarantine id). It goes through dedupe as usual.
   */
  replayOf?: string;
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
  /** Hears every violation the payment book finds, held or flagged, with the event (needs a `book`). */
  onViolation(handler: ViolationHandler): Processing;
  /**
   * Runs a held event's handlers once, when a person decided it is right (`book.held()` lists them): exactly
   * once across every processing sharing the book. A failing handler leaves it held (`handler_failed`).
   */
  release(heldId: string): Promise<ReleaseResult>;
  /**
   * With `disputeAlertMs`: scans the book's open disputes now (it also runs every minute) and tells
   * `onViolation` (`dispute_deadline`) about each one that reached the alert age and was not told yet in
   * this process. Resolves how many it told; 0 without `disputeAlertMs`. Never rejects.
   */
  checkDisputes(): Promise<number>;
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

export function createProcessing(options: ProcessingOptions = {}): Processing {
  const config = resolveProcessingOptions(options);
  const { mode, telemetry } = config;
  const store = guardStore(config.store, config.storeTimeoutMs);
  const keeper = createClaimKeeper(store, config.claimTtlMs);
  const handlers = createHandlerRegistry();
  const metrics = createProcessingMetrics();
  const pending = new Set<Promise<unknown>>();
  const log = config.logger;
  const { book, policy, confirm } = config;
  const violationHandlers: ViolationHandler[] = [];
  // A book that takes the claim with its own update in one step on this store (Redis: one script); else claim, then record.
  // Not under `confirm`: the gateway is read between the claim and the book's decision.
  const joined = confirm === undefined ? joinedClaimOf(config.store, book) : undefined;
  const disputeAlerts =
    book === undefined || config.disputeAlertMs === undefined
      ? undefined
      : createDisputeAlerts({
          book,
          alertMs: config.disputeAlertMs,
          tell: (violation, event) => tellViolations([violation], event),
          failed: (error) => log.warn({ error: describeError(error) }, 'pixhook: could not read open disputes; the next scan tries again'),
        });
  disputeAlerts?.start();
  // The delivery journal, written off the hot path; undefined (and never looked at again) without one.
  const writer = config.journal && new JournalWriter(config.journal, log, (work) => keepAlive(work), mode === 'durable');

  /**
   * Inline: run the handlers, then answer. Past `deadlineMs` the answer is 503 `handler_timeout` while
   * the run goes on (up to `handlerTimeoutMs`) and settles the claim itself, so the sender's retry is
   * answered `in_flight` until then, and `duplicate` after a success.
   */
  const inline: Acknowledgement = {
    acknowledge(run) {
      const running = run.attempt(1);
      if (!isPromise(running)) return settleInline(running, run);
      // The run outlives this turn: renew its claim until it settles.
      run.hold();
      const settled = running.then((outcome) => settleInline(outcome, run));
      return raceDeadline(settled, config.deadlineMs).then((result) => {
        if (result !== 'deadline') return result;
        // The run outlives the answer: on serverless platforms only a waitUntil keeps it (and its claim) alive.
        run.keepAlive(settled);
        return 'handler_timeout';
      });
    },
    size: 0,
    idle: () => Promise.resolve(),
  };
  const acknowledgement = mode === 'background' ? createBackgroundMode(config) : mode === 'durable' ? createDurableMode(config) : inline;

  /** A claimed event and the end of its claim, whichever way (see `ClaimedRun`). A class: one is made per delivery. */
  class Run implements ClaimedRun {
    lost = false;
    onLost: (() => void) | undefined = undefined;
    hint: string | undefined = undefined;
    /** The delivery's trace context, taken when it arrived: the handler span links to it even when it runs later. */
    readonly link: Record<string, string> | undefined;
    /** Renewed by the keeper (most inline runs settle in their own turn and never are). */
    held = false;

    // Copied out of the options: a queued run must not keep the caller's request alive.
    readonly given: string | undefined;
    readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
    readonly journal: JournalRecord | undefined;

    constructor(
      public event: PixEvent,
      readonly key: string,
      readonly owner: string,
      options: AcceptOptions,
    ) {
      this.given = options.body;
      this.waitUntil = options.waitUntil;
      this.link = options.trace ?? currentTrace();
      this.journal = writer && journalRecordOf(options);
    }

    get body(): string {
      return this.given ?? JSON.stringify(this.event.payload);
    }

    attempt(attempt: number): MaybePromise<AttemptOutcome> {
      const record = this.journal;
      return record === undefined ? this.run(attempt) : timedAttempt(writer!, record, attempt, () => this.run(attempt));
    }

    private run(attempt: number): MaybePromise<AttemptOutcome> {
      const { event, key, link } = this;
      return runAttempt({
        handlers,
        event,
        attempt,
        mode,
        source: event.source ?? 'webhook',
        limitMs: config.handlerTimeoutMs,
        claim: this,
        key,
        telemetry,
        link,
      });
    }

    hold(): void {
      this.held = true;
      keeper.hold(this);
    }

    /** Stops renewing the claim, if it ever was. */
    unhold(): void {
      if (this.held) keeper.drop(this);
    }

    succeed(outcome: AttemptOutcome): MaybePromise<void> {
      if (outcome.ok && outcome.duplicate) metrics.duplicate();
      else metrics.handled();
      return this.markDone(warnUnmarked, failedToMark);
    }

    /** The book holds the event: its fact is recorded, so the key is done (the book answers its retries `held`). */
    markHeld(): MaybePromise<void> {
      return this.markDone(ignore, heldUnmarked);
    }

    markQueued(): MaybePromise<void> {
      return this.markDone(ignore, queuedUnmarked);
    }

    /** Stops renewing the claim and marks the key done; a store failure goes to `onFailed`, never to the caller. */
    private markDone(onMarked: (marked: boolean, run: Run) => void, onFailed: (error: unknown, run: Run) => void): MaybePromise<void> {
      this.unhold();
      try {
        return andThen(store.complete(this.key, this.owner, config.dedupeTtlMs), onMarked, onFailed, this);
      } catch (error) {
        return onFailed(error, this);
      }
    }

    retrying(outcome: FailedAttempt, attempt: number): void {
      metrics.failed(outcome);
      log.warn(
        { key: this.key, event: this.event.name, attempt, error: describeError(outcome.error) },
        'pixhook: handler failed; retrying',
      );
    }

    async fail(outcome: FailedAttempt, attempt: number): Promise<void> {
      await this.release();
      await reportFailure(this.event, this.key, outcome, attempt);
    }

    async release(): Promise<void> {
      this.unhold();
      try {
        await store.release(this.key, this.owner);
      } catch (error) {
        log.error({ key: this.key, error: describeError(error) }, 'pixhook: could not release a claim; it will expire');
      }
    }

    keepAlive(work: Promise<unknown>): void {
      keepAlive(work, this.waitUntil);
    }
  }

  function warnUnmarked(marked: boolean, run: Run): void {
    if (!marked) log.warn({ key: run.key }, 'pixhook: another run took this key before the handled event was marked done');
  }

  function failedToMark(error: unknown, run: Run): void {
    // Handled already: answering an error would only make the sender run it again.
    log.error({ key: run.key, error: describeError(error) }, 'pixhook: could not mark an event done; its claim will expire');
  }

  function heldUnmarked(error: unknown, run: Run): void {
    log.warn(
      { key: run.key, error: describeError(error) },
      'pixhook: could not mark a held event done; a retry finds its hold in the book',
    );
  }

  function queuedUnmarked(error: unknown, run: Run): void {
    log.warn(
      { key: run.key, error: describeError(error) },
      'pixhook: could not mark a queued event done; the queue job id still dedupes it',
    );
  }

  /** A run failed for good: count it, log it, tell `onError`. Never rejects. */
  async function reportFailure(
    event: PixEvent | UnknownEvent,
    key: string | undefined,
    outcome: FailedAttempt,
    attempt: number,
  ): Promise<void> {
    metrics.failed(outcome);
    const error = outcome.error;
    log.error(
      { ...(key !== undefined && { key }), event: event.name, attempt, error: describeError(error) },
      outcome.timedOut ? 'pixhook: handler timed out' : 'pixhook: handler failed',
    );
    await handlers.reportError({ error, event, ...(key !== undefined && { key }), attempt, mode });
  }

  /** Work after the answer: tracked for `drain()` and handed to the platform's `waitUntil`. */
  function keepAlive(work: Promise<unknown>, waitUntil = config.waitUntil): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
    if (!waitUntil) return;
    try {
      waitUntil(work);
    } catch (error) {
      log.error({ error: describeError(error) }, 'pixhook: waitUntil threw; the work goes on unguarded');
    }
  }

  function currentTrace(): Record<string, string> | undefined {
    try {
      return telemetry?.currentTrace();
    } catch {
      return undefined;
    }
  }

  // Synchronous until something is really asynchronous (a remote store, an async handler): each
  // await is a tick, and an in-process store with a synchronous handler needs none.
  function acceptKnown(event: PixEvent, options: AcceptOptions): MaybePromise<AcceptResult> {
    // 1. The key, then the claim, before any side effect.
    const key = config.dedupeKey(event);
    if (typeof key !== 'string' || key === '') throw new PixhookError('internal_error', 'dedupeKey must return a non-empty string');
    const run = new Run(event, key, ownerPrefix + ++ownerSeq, options);
    if (joined !== undefined) return claimAndRecord(joined, run);
    let claiming: MaybePromise<ClaimResult>;
    try {
      claiming = store.claim(key, run.owner, config.claimTtlMs);
    } catch (error) {
      return storeUnavailable(error, run);
    }
    return andThen(claiming, claimed, storeUnavailable, run);
  }

  function claimed(result: ClaimResult, run: Run): MaybePromise<AcceptResult> {
    if (result === 'done') return book === undefined ? { reason: 'duplicate', key: run.key } : retryOfHeld(book, run);
    if (result === 'in_flight') return { reason: 'in_flight', key: run.key };
    // 2. The payment book, before any named handler: a hold ends here, a flag rides on the event.
    if (book !== undefined) return recordInBook(book, run);
    // 3. Dispatch and acknowledge, as the mode says.
    return andThen(acknowledgement.acknowledge(run), acknowledged, undefined, run);
  }

  async function recordInBook(book: PaymentBook, run: Run): Promise<AcceptResult> {
    run.hold();
    // `confirm`: the gateway's record first; unreadable, the claim is given back so the sender's retry runs it.
    let gateway: ConfirmOutcome | undefined;
    if (confirm !== undefined) {
      gateway = await confirmWithGateway(confirm, run.event, Date.now());
      if (!gateway.ok) {
        await run.release();
        return { reason: 'gateway_unavailable', key: run.key, hint: gateway.hint };
      }
    }
    let recorded: RecordResult;
    try {
      const confirmed = gateway?.ok === true ? gateway.confirmed : undefined;
      recorded = await book.record(run.event, { dedupeKey: run.key, policy, ...(confirmed !== undefined && { confirmed }) });
    } catch (error) {
      // Fail closed, like the dedupe store: the sender retries and the book judges it then.
      await run.release();
      return { reason: 'store_unavailable', key: run.key, hint: 'payment book: ' + describeError(error) };
    }
    return afterRecord(recorded, run);
  }

  /** The claim and the book's update in one step; its answers mean what `claimed` and `recordInBook` make of them. */
  async function claimAndRecord(join: JoinedClaim, run: Run): Promise<AcceptResult> {
    let joinedResult: Awaited<ReturnType<JoinedClaim>>;
    try {
      const claiming = join(run.key, run.owner, config.claimTtlMs, run.event, { dedupeKey: run.key, policy });
      joinedResult = await withTimeout(claiming, config.storeTimeoutMs, 'dedupe claim and payment book');
    } catch (error) {
      return storeUnavailable(error, run);
    }
    if (joinedResult.claim === 'done') return { reason: joinedResult.retry === undefined ? 'duplicate' : 'held', key: run.key };
    if (joinedResult.claim !== 'claimed') return { reason: joinedResult.claim, key: run.key };
    run.hold();
    return afterRecord(joinedResult.recorded, run);
  }

  /** A hold ends here (the key is done; the book answers its retries `held`); a flag rides on the event to the handlers. */
  async function afterRecord(recorded: RecordResult, run: Run): Promise<AcceptResult> {
    if (recorded.violations.length > 0) {
      run.event = { ...run.event, violations: recorded.violations };
      tellViolations(recorded.violations, run.event);
    }
    if (recorded.outcome !== 'apply') {
      await run.markHeld();
      return { reason: 'held', key: run.key };
    }
    return andThen(acknowledgement.acknowledge(run), acknowledged, undefined, run);
  }

  /** The store says done; the book says `held` while the event waits for a person (its retries and its other-channel copy). */
  async function retryOfHeld(book: PaymentBook, run: Run): Promise<AcceptResult> {
    try {
      if ((await book.retryOfHeld(run.event, { dedupeKey: run.key, policy })) !== undefined) return { reason: 'held', key: run.key };
    } catch (error) {
      return { reason: 'duplicate', key: run.key, hint: 'payment book: ' + describeError(error) };
    }
    return { reason: 'duplicate', key: run.key };
  }

  /** Every `onViolation` handler hears each violation; their failures are logged, never the delivery's. */
  function tellViolations(violations: readonly Violation[], event: PixEvent): void {
    for (const violation of violations) {
      for (const handler of violationHandlers) {
        try {
          const told = handler(violation, event);
          if (told !== undefined && typeof told.then === 'function') keepAlive(Promise.resolve(told).catch(violationHandlerFailed));
        } catch (error) {
          violationHandlerFailed(error);
        }
      }
    }
  }

  function violationHandlerFailed(error: unknown): void {
    log.error({ error: describeError(error) }, 'pixhook: an onViolation handler failed');
  }

  async function releaseHeld(heldId: string): Promise<ReleaseResult> {
    if (book === undefined)
      throw new PixhookConfigError('pixhook: `release` needs a `book` (createReceiver({ book })): nothing is held without one.');
    const claim = await book.claimRelease(heldId);
    if (!claim.ok) return claim;
    const { held } = claim;
    const event: PixEvent = held.violations.length > 0 ? { ...held.event, violations: held.violations } : held.event;
    const running = () => runOnce(event, held.dedupeKey, currentTrace());
    const outcome = await (writer === undefined ? running() : timedRelease(writer, held, running));
    await book.finishRelease(heldId, outcome.ok);
    if (!outcome.ok) {
      await reportFailure(event, held.dedupeKey, outcome, 1);
      return { ok: false, reason: 'handler_failed' };
    }
    metrics.handled();
    // A fresh done mark: a late retry of a released event stays a duplicate for another dedupeTtlMs.
    try {
      await store.complete(held.dedupeKey, ownerPrefix + ++ownerSeq, config.dedupeTtlMs);
    } catch (error) {
      log.warn({ key: held.dedupeKey, error: describeError(error) }, 'pixhook: could not mark a released event done');
    }
    return { ok: true };
  }

  /** One run of an event outside a claimed delivery (a released hold, an unknown event): attempt 1, inline limits. */
  function runOnce(
    event: PixEvent | UnknownEvent,
    key: string | undefined,
    link: Record<string, string> | undefined,
  ): MaybePromise<AttemptOutcome> {
    return runAttempt({
      handlers,
      event,
      attempt: 1,
      mode,
      source: event.source ?? 'webhook',
      limitMs: config.handlerTimeoutMs,
      ...(key !== undefined && { key }),
      telemetry,
      link,
    });
  }

  /** Unknown names are acknowledged and handed to onUnknown, never to typed handlers; not deduplicated. */
  function acceptUnknown(event: UnknownEvent, options: AcceptOptions): MaybePromise<AcceptResult> {
    const id = writer && journalRecordOf(options);
    const run = () => runOnce(event, undefined, options.trace ?? currentTrace());
    const running = id === undefined ? run() : timedAttempt(writer!, id, 1, run);
    const settled = andThen(running, (outcome) => (outcome.ok ? undefined : reportFailure(event, undefined, outcome, 1)));
    if (!isPromise(settled)) return { reason: 'unknown_event' };
    // Inline waits for onUnknown, but never past the deadline: the answer is 200 either way.
    if (mode !== 'inline') {
      keepAlive(settled, options.waitUntil);
      return { reason: 'unknown_event' };
    }
    return raceDeadline(settled, config.deadlineMs).then((result) => {
      if (result === 'deadline') keepAlive(settled, options.waitUntil);
      return { reason: 'unknown_event' };
    });
  }

  const processing: Processing = {
    mode,
    ...(config.store.quarantine && { quarantine: config.store.quarantine }),
    hasWaitUntil: config.waitUntil !== undefined,
    ...registrationOf(() => processing, handlers),
    onViolation(handler) {
      if (book === undefined)
        throw new PixhookConfigError('pixhook: `onViolation` needs a `book` (createProcessing({ book })): nothing is checked without one.');
      violationHandlers.push(handler);
      return processing;
    },
    release: releaseHeld,
    checkDisputes: () => disputeAlerts?.check() ?? Promise.resolve(0),
    async accept(event, options = {}) {
      return processing.acceptNow(event, options);
    },
    acceptNow(event, options = noOptions) {
      if (writer !== undefined && options.replayOf !== undefined && journalRecordOf(options) === undefined)
        return journalReplay(writer, event, options, (journaled) => processing.acceptNow(event, journaled));
      try {
        return andThen(event.kind === 'unknown' ? acceptUnknown(event, options) : acceptKnown(event, options), same, acceptFailed);
      } catch (error) {
        // Only a bug (ours, or a custom dedupeKey/store) lands here; the process must not crash on it.
        return acceptFailed(error);
      }
    },
    async runQueued(job, run) {
      const event = readQueued(job);
      const running = () =>
        runAttempt({
          handlers,
          event,
          attempt: run.attempt,
          mode: 'durable',
          source: event.source ?? job.source ?? 'webhook',
          limitMs: config.queuedHandlerTimeoutMs,
          key: job.key,
          telemetry,
          link: job.trace,
        });
      const id = writer && job.journalId;
      const outcome = await (id === undefined
        ? running()
        : timedAttempt(writer!, id, run.attempt, running, job.replayOf === undefined ? undefined : 'replay'));
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
      const worstRun =
        config.mode === 'background'
          ? config.retry.attempts * config.handlerTimeoutMs + config.retry.totalDelayMs
          : config.handlerTimeoutMs;
      const giveUpAt = Date.now() + (options.timeoutMs ?? worstRun);
      while (pending.size > 0 || acknowledgement.size > 0 || writer?.busy === true) {
        const left = giveUpAt - Date.now();
        if (left <= 0) return false;
        const settled = Promise.all([...pending, acknowledgement.idle(), writer?.idle()]);
        // One wait stays within a timer's range; the loop waits again until `giveUpAt`.
        if ((await raceDeadline(settled, Math.min(left, maxDelayMs))) === 'deadline' && left <= maxDelayMs) return false;
      }
      return true;
    },
    metrics: () => ({ ...metrics.snapshot(), journalFailures: writer?.failures ?? 0 }),
    handlerCount: () => handlers.handlerCount(),
  };
  if (writer !== undefined) registerJournalWriter(processing, writer);
  return processing;
}

const same = <T>(value: T): T => value;
const ignore = (): void => undefined;
const handledReason = (): undefined => undefined;
const duplicateReason = (): ProcessingReason => 'duplicate';
const failedReason = (): ProcessingReason => 'handler_failed';

/** How an inline run ends: its claim marked done, or given back with `onError` told; then the answer's reason. */
function settleInline(outcome: AttemptOutcome, run: ClaimedRun): MaybePromise<ProcessingReason | undefined> {
  if (!outcome.ok) return run.fail(outcome, 1).then(failedReason);
  return andThen(run.succeed(outcome), outcome.duplicate ? duplicateReason : handledReason);
}

function acknowledged(reason: ProcessingReason | undefined, run: ClaimedRun): AcceptResult {
  if (reason === undefined) return { key: run.key };
  return run.hint === undefined ? { key: run.key, reason } : { key: run.key, reason, hint: run.hint };
}

function acceptFailed(error: unknown): AcceptResult {
  return { reason: 'internal_error', hint: describeError(error) };
}

function storeUnavailable(error: unknown, run: ClaimedRun): AcceptResult {
  return { reason: 'store_unavailable', key: run.key, hint: describeError(error) };
}

/** The run's result, or 'deadline' once `ms` passed (the run goes on). One promise: cheaper than Promise.race. */
export function raceDeadline<T>(run: Promise<T>, ms: number): Promise<T | 'deadline'> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms, 'deadline');
    void run.then((result) => {
      clearTimeout(timer);
      resolve(result);
    });
  });
}

/** A queued job's event, read again from the verified bytes it carries. */
function readQueued(job: QueuedEvent): PixEvent {
  if (typeof job.body !== 'string') throw new PixhookError('payload_invalid', `queued job ${job.key} carries no verified body`);
  let value: unknown;
  try {
    value = JSON.parse(job.body);
  } catch {
    throw new PixhookError('payload_invalid', `queued job ${job.key} does not hold JSON`);
  }
  const normalized = normalizeEvent(value, { source: job.source ?? 'webhook' });
  if (!normalized.ok || normalized.event.kind === 'unknown') {
    throw new PixhookError('payload_invalid', `queued job ${job.key} no longer normalizes`);
  }
  return normalized.event;
}
