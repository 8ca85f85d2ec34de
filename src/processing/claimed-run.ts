import type { Committed, DoneMark, PendingApply } from '../book/joined-claim.js';
import type { ClaimKeeper } from '../dedupe/claim-keeper.js';
import type { DedupeStore } from '../dedupe/dedupe-store.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { OrderedRun, ResourceOrder } from './resource-order.js';
import type { JournalRecord, JournalWriter } from '../journal/journal-writer.js';
import type { ProcessingMetricsRecorder } from '../metrics/receiver-metrics.js';
import { describeError } from '../shared/describe-error.js';
import { effectsRolledBack, unknownCommit } from '../shared/not-committed.js';
import type { Logger } from '../shared/logger.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import type { ClaimedRun } from './acknowledgement.js';
import type { DeliveryContext } from './delivery-context.js';
import type { HandlerRegistry } from './handler-registry.js';
import { timedAttempt } from './journal-hook.js';
import type { ResolvedProcessingOptions } from './processing-options.js';
import { runAttempt, type AttemptOutcome, type FailedAttempt } from './run-attempt.js';

/** What every run of one processing shares (made once by `createProcessing`). */
export interface RunScope {
  readonly config: ResolvedProcessingOptions;
  /** The guarded store (bounded by `storeTimeoutMs`). */
  readonly store: DedupeStore;
  readonly keeper: ClaimKeeper;
  readonly handlers: HandlerRegistry;
  readonly metrics: ProcessingMetricsRecorder;
  readonly log: Logger;
  readonly writer: JournalWriter | undefined;
  /** One order of effects per resource: a run's lease is given back when its claim ends. */
  readonly order: ResourceOrder;
  /** Work after the answer: tracked for `drain()` and handed to `waitUntil` (the processing's option by default). */
  keepAlive(work: Promise<unknown>, waitUntil?: (promise: Promise<unknown>) => void): void;
  /** A run failed for good: count it, log it, tell `onError`. Never rejects. */
  reportFailure(event: PixEvent | UnknownEvent, key: string | undefined, outcome: FailedAttempt, attempt: number): Promise<void>;
  /** One run of an event outside a claimed delivery (a released hold, an unknown event): attempt 1, inline limits. */
  runOnce(event: PixEvent | UnknownEvent, key: string | undefined, link: Record<string, string> | undefined): MaybePromise<AttemptOutcome>;
  /** The trace context current now (undefined without telemetry, or when it throws). */
  currentTrace(): Record<string, string> | undefined;
}

export function createRunScope(parts: Omit<RunScope, 'reportFailure' | 'runOnce' | 'currentTrace'>): RunScope {
  const { config, handlers, metrics, log } = parts;
  const { mode, telemetry } = config;
  return {
    ...parts,
    async reportFailure(event, key, outcome, attempt) {
      metrics.failed(outcome);
      const error = outcome.error;
      log.error(
        { ...(key !== undefined && { key }), event: event.name, attempt, error: describeError(error) },
        outcome.timedOut ? 'pixhook: handler timed out' : 'pixhook: handler failed',
      );
      await handlers.reportError({ error, event, ...(key !== undefined && { key }), attempt, mode });
    },
    runOnce(event, key, link) {
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
    },
    currentTrace() {
      try {
        return telemetry?.currentTrace();
      } catch {
        return undefined;
      }
    },
  };
}

/** A claimed event and the end of its claim, whichever way (see `ClaimedRun`). A class: one is made per delivery. */
export class Run implements ClaimedRun, OrderedRun, DoneMark {
  lost = false;
  order: OrderedRun['order'] = undefined;
  early: OrderedRun['early'] = undefined;
  onLost: (() => void) | undefined = undefined;
  hint: string | undefined = undefined;
  /** The delivery's trace context, taken when it arrived: the handler span links to it even when it runs later. */
  readonly link: Record<string, string> | undefined;
  /** Renewed by the keeper (most inline runs settle in their own turn and never are). */
  held = false;
  /** The book's apply, judged and not written: committed with the done mark on success, dropped on failure. */
  pending: PendingApply | undefined = undefined;
  /** Set when the commit of the handlers' effects failed (nothing applied): the error, for the run's retry or report. */
  notCommitted: unknown = undefined;
  /** The succeeding run found the event applied already (counted as a duplicate once committed). */
  duplicate = false;
  /** A commit of the handlers' effects that outlived `storeTimeoutMs`, still settling: the claim is kept until it ends. */
  settling: Promise<unknown> | undefined = undefined;

  // Copied out of the context: a queued run must not keep the caller's request alive.
  readonly given: string | undefined;
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  readonly journal: JournalRecord | undefined;

  constructor(
    readonly scope: RunScope,
    public event: PixEvent,
    readonly key: string,
    readonly owner: string,
    context: DeliveryContext,
  ) {
    this.given = context.body;
    this.waitUntil = context.waitUntil;
    this.link = context.trace ?? scope.currentTrace();
    this.journal = scope.writer && context.journal;
  }

  // The run is its own done mark for the book's commit (DoneMark): nothing is made per delivery for a book that
  // does not read it (memory); `lease` is made when read (Redis).
  get store(): DedupeStore {
    return this.scope.config.store;
  }

  get ttlMs(): number {
    return this.scope.config.dedupeTtlMs;
  }

  get lease(): DoneMark['lease'] {
    const taken = this.order;
    return taken === undefined ? undefined : { resource: taken.resource, fence: taken.fence };
  }

  get body(): string {
    return this.given ?? JSON.stringify(this.event.payload);
  }

  attempt(attempt: number): MaybePromise<AttemptOutcome> {
    const record = this.journal;
    return record === undefined ? this.run(attempt) : timedAttempt(this.scope.writer!, record, attempt, () => this.run(attempt));
  }

  private run(attempt: number): MaybePromise<AttemptOutcome> {
    const { event, key, link } = this;
    const { config, handlers } = this.scope;
    return runAttempt({
      handlers,
      event,
      attempt,
      mode: config.mode,
      source: event.source ?? 'webhook',
      limitMs: config.handlerTimeoutMs,
      claim: this,
      key,
      telemetry: config.telemetry,
      link,
    });
  }

  hold(): void {
    this.held = true;
    this.scope.keeper.hold(this);
    this.scope.order.hold(this);
  }

  async reenter(): Promise<boolean> {
    const { order } = this.scope;
    if (!(await order.enter(this))) return false;
    order.hold(this);
    return true;
  }

  /** Stops renewing the claim, if it ever was. */
  unhold(): void {
    if (this.held) this.scope.keeper.drop(this);
  }

  /**
   * Marks the key done (committing the book's apply). `true`: applied (a done mark that failed alone is logged).
   * `false`: the commit that also held the handlers' effects failed, so nothing was applied; the lease is given
   * back and the claim kept for the caller to retry under it or give back (`release`).
   */
  succeed(outcome: AttemptOutcome): MaybePromise<boolean> {
    this.notCommitted = undefined;
    this.duplicate = outcome.ok && outcome.duplicate === true;
    return andThen(this.markDone(warnUnmarked, failedToMark), countApplied, undefined, this);
  }

  /** The book holds the event: its fact is recorded, so the key is done (the book answers its retries `held`). */
  markHeld(): MaybePromise<void> {
    return this.markDone(ignore, heldUnmarked);
  }

  markQueued(): MaybePromise<void> {
    return this.markDone(ignore, queuedUnmarked);
  }

  /**
   * Stops renewing the claim and marks the key done; a store failure goes to `onFailed`, never to the caller.
   * A judged apply is committed first, under the order lease: the book's change, the done mark and the
   * lease's give-back in one step where the backend can (Redis: one script; memory: one synchronous turn).
   */
  protected markDone(onMarked: (marked: boolean, run: Run) => void, onFailed: (error: unknown, run: Run) => void): MaybePromise<void> {
    this.unhold();
    const pending = this.pending;
    if (pending !== undefined) {
      this.pending = undefined;
      return this.commit(pending, onMarked, onFailed);
    }
    this.scope.order.leave(this);
    return this.complete(onMarked, onFailed);
  }

  private complete(onMarked: (marked: boolean, run: Run) => void, onFailed: (error: unknown, run: Run) => void): MaybePromise<void> {
    try {
      return andThen(this.scope.store.complete(this.key, this.owner, this.scope.config.dedupeTtlMs), onMarked, onFailed, this);
    } catch (error) {
      return onFailed(error, this);
    }
  }

  /** The book's apply with the done mark; what the book's step did not do (mark, lease) is done after it, in that order. */
  private commit(
    pending: PendingApply,
    onMarked: (marked: boolean, run: Run) => void,
    onFailed: (error: unknown, run: Run) => void,
  ): MaybePromise<void> {
    let committing: MaybePromise<Committed>;
    try {
      committing = pending(this);
    } catch (error) {
      committing = Promise.reject(error as Error);
    }
    if (!isPromise(committing)) return this.committed(committing, onMarked, onFailed);
    return Promise.resolve(committing).then(
      (committed) => this.committed(committed, onMarked, onFailed),
      (error: unknown) => this.uncommitted(error, onMarked, onFailed),
    );
  }

  private committed(
    committed: Committed,
    onMarked: (marked: boolean, run: Run) => void,
    onFailed: (error: unknown, run: Run) => void,
  ): MaybePromise<void> {
    if (committed.leaseGiven === true) this.scope.order.forget(this);
    else this.scope.order.leave(this);
    if (committed.marked !== undefined) return onMarked(committed.marked, this);
    return this.complete(onMarked, onFailed);
  }

  private uncommitted(
    error: unknown,
    onMarked: (marked: boolean, run: Run) => void,
    onFailed: (error: unknown, run: Run) => void,
  ): MaybePromise<void> {
    // Not the inbox (a pending apply is a memory, Redis, or inbox-less Postgres book's): the handlers' effects were
    // committed outside this failed step, so the run is applied; answering an error would run them twice. The
    // handlers ran and the book could not say so: the done mark still keeps the sender's retries out.
    this.scope.order.leave(this);
    this.scope.log.error(
      { key: this.key, error: describeError(error) },
      'pixhook: could not record a handled event in the payment book; after its done mark expires, a replay may run it again',
    );
    return this.complete(onMarked, onFailed);
  }

  retrying(outcome: FailedAttempt, attempt: number): void {
    this.scope.metrics.failed(outcome);
    this.scope.log.warn(
      { key: this.key, event: this.event.name, attempt, error: describeError(outcome.error) },
      'pixhook: handler failed; retrying',
    );
  }

  async fail(outcome: FailedAttempt, attempt: number): Promise<void> {
    await this.release();
    await this.scope.reportFailure(this.event, this.key, outcome, attempt);
  }

  async release(): Promise<void> {
    this.unhold();
    // The handlers did not succeed: the book stays as it was before the event.
    this.pending = undefined;
    this.scope.order.leave(this);
    const settling = this.settling;
    if (settling !== undefined) {
      // A commit still under way may yet apply the event: the claim is given back only once it is known not to have.
      this.settling = undefined;
      void settling.then(ignore, (error: unknown) => (effectsRolledBack(error) ? this.release() : undefined));
      return;
    }
    try {
      await this.scope.store.release(this.key, this.owner);
    } catch (error) {
      this.scope.log.error({ key: this.key, error: describeError(error) }, 'pixhook: could not release a claim; it will expire');
    }
  }

  keepAlive(work: Promise<unknown>): void {
    this.scope.keepAlive(work, this.waitUntil);
  }
}

const ignore = (): void => undefined;

function warnUnmarked(marked: boolean, run: Run): void {
  if (!marked) run.scope.log.warn({ key: run.key }, 'pixhook: another run took this key before the handled event was marked done');
}

function failedToMark(error: unknown, run: Run): MaybePromise<void> {
  const settling = unknownCommit(error);
  if (settling !== undefined) {
    // The effects' commit outlived storeTimeoutMs. Background and durable runs have the time: wait for the outcome.
    if (run.scope.config.mode !== 'inline')
      return settling.then(
        (marked) => warnUnmarked(marked === true, run),
        (late: unknown) => failedToMark(late, run),
      );
    // Inline must answer now, and may not say applied: nothing applied as far as the sender can tell (a retryable
    // answer), the claim kept until the commit ends. Committed: the retry finds the key done. Rolled back: the claim is
    // given back then, and the retry runs it once.
    run.notCommitted = error;
    run.settling = settling;
    run.scope.log.error(
      { key: run.key, error: describeError(error) },
      'pixhook: the commit of a handled event’s effects outlived storeTimeoutMs; its outcome is not known yet: answered as not applied, a retry finds it done or runs it once',
    );
    return;
  }
  if (effectsRolledBack(error)) {
    // The inbox's transaction: the handlers' writes, the book's and the done mark did not commit (the store says
    // so; a `claim_lost` does not: another transaction committed the effects). Not applied: the caller retries or
    // gives the claim back. A connection lost during the COMMIT leaves the outcome unknown; a retry is safe all the
    // same, because the done mark commits with the effects: the retry finds the key done (duplicate) or free.
    run.notCommitted = error;
    run.scope.log.error(
      { key: run.key, error: describeError(error) },
      'pixhook: the transaction holding a handled event’s effects did not commit; nothing was applied, a retry runs its handlers',
    );
    return;
  }
  // Handled already (its effects committed apart from the mark): answering an error would make the sender run it again.
  run.scope.log.error({ key: run.key, error: describeError(error) }, 'pixhook: could not mark an event done; its claim will expire');
}

function countApplied(_: void, run: Run): boolean {
  if (run.notCommitted !== undefined) return false;
  if (run.duplicate) run.scope.metrics.duplicate();
  else run.scope.metrics.handled();
  return true;
}

function heldUnmarked(error: unknown, run: Run): void {
  run.scope.log.warn(
    { key: run.key, error: describeError(error) },
    'pixhook: could not mark a held event done; a retry finds its hold in the book',
  );
}

function queuedUnmarked(error: unknown, run: Run): void {
  run.scope.log.warn(
    { key: run.key, error: describeError(error) },
    'pixhook: could not mark a queued event done; the queue job id still dedupes it',
  );
}
