import { joinedClaimOf } from '../book/joined-claim.js';
import { createBookStage } from '../book/book-stage.js';
import { createDisputeAlerts } from '../book/dispute-alerts.js';
import { createClaimKeeper } from '../dedupe/claim-keeper.js';
import type { ClaimResult } from '../dedupe/dedupe-store.js';
import { guardStore } from '../dedupe/guard-store.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import { createProcessingMetrics } from '../metrics/receiver-metrics.js';
import { describeError } from '../shared/describe-error.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import { PixhookConfigError, PixhookError } from '../shared/pixhook-error.js';
import type { ProcessingReason } from '../shared/reasons.js';
import { JournalWriter } from '../journal/journal-writer.js';
import { acceptUnknown } from './accept-unknown.js';
import { createBackgroundMode } from './background-mode.js';
import { createRunScope, Run } from './claimed-run.js';
import { checkHealth } from './health-checks.js';
import { contextOf, type DeliveryContext, type DeliveryProcessing } from './delivery-context.js';
import { createDurableMode } from './durable-mode.js';
import { createHandlerRegistry, registrationOf } from './handler-registry.js';
import { createInlineMode } from './inline-mode.js';
import { journalReplay } from './journal-hook.js';
import type { AcceptResult, Processing } from './processing.js';
import { allProcessingOptionNames, resolveProcessingOptions, type ProcessingOptions } from './processing-options.js';
import { refuseUnknownOptions } from '../shared/known-options.js';
import { releaseHeld } from './release-held.js';
import { QueuedJob } from './queued-job.js';
import { runQueued } from './run-queued.js';
import { createResourceOrder } from './resource-order.js';
import { createWorkTracker } from './work-tracker.js';

export type { AcceptOptions, AcceptResult, Processing, QueuedRun } from './processing.js';

let ownerSeq = 0;
// One random prefix per process, then a counter: unique owners without a random UUID per event.
const ownerPrefix = `${Math.random().toString(36).slice(2, 10)}.`;
const newOwner = (): string => ownerPrefix + ++ownerSeq;

/**
 * The delivery's stages, composed: claim (dedupe) → book → dispatch (the mode: inline, background,
 * durable) → answer. Each stage lives in its own file; this one wires them to one config.
 */
export function createProcessing(options: ProcessingOptions = {}): Processing {
  refuseUnknownOptions(options, allProcessingOptionNames, 'createProcessing');
  return buildProcessing(options);
}

/** `createProcessing` without its unknown-key check: for a receiver, whose whole options it has already checked. */
export function buildProcessing(options: ProcessingOptions): Processing {
  const config = resolveProcessingOptions(options);
  const { mode, book } = config;
  const store = guardStore(config.store, config.storeTimeoutMs);
  const handlers = createHandlerRegistry();
  const metrics = createProcessingMetrics();
  const log = config.logger;
  // One order of effects per resource: each resource's events run in its lease's order (durable: on the worker).
  const order = createResourceOrder(config);
  const durable = mode === 'durable' ? createDurableMode(config) : undefined;
  const acknowledgement = durable ?? (mode === 'inline' ? createInlineMode(config) : createBackgroundMode(config));
  // Durable on a queue whose add is the claim (createDurableQueue): the receiver's one step per event.
  const queueAsClaim = durable?.queueAsClaim;
  const work = createWorkTracker({ waitUntil: config.waitUntil, log, acknowledgement, writer: () => writer });
  // The delivery journal, written off the hot path; undefined (and never looked at again) without one.
  const writer = config.journal && new JournalWriter(config.journal, log, (written) => work.keepAlive(written), mode === 'durable');
  const keeper = createClaimKeeper(store, config.claimTtlMs);
  const scope = createRunScope({ config, store, keeper, handlers, metrics, log, writer, order, keepAlive: work.keepAlive });
  // A durable job on the worker runs its handlers now; a delivery goes on to its mode's acknowledgement.
  const dispatch = (run: Run): MaybePromise<AcceptResult> =>
    run instanceof QueuedJob ? run.dispatchJob() : andThen(acknowledgement.acknowledge(run), acknowledged, undefined, run);
  const bookStage =
    book &&
    createBookStage<Run>({
      ...config,
      book,
      log,
      keepAlive: (told) => work.keepAlive(told),
      dispatch,
      leave: (run) => order.leave(run),
      inTurn: (run, ask) => order.enterWith(run, ask, (answer) => (answer.claim === 'claimed' ? answer.fence : undefined)),
    });
  // A book that takes the claim with its own update in one step on this store (Redis: one script).
  // Not under `confirm`: the gateway is read between the claim and the book's decision.
  // Durable: the receiver only claims and queues; the worker judges the job in the book when it runs it.
  const joined = config.confirm === undefined && mode !== 'durable' ? joinedClaimOf(config.store, book) : undefined;
  const disputeAlerts =
    book &&
    config.disputeAlertMs !== undefined &&
    createDisputeAlerts({
      book,
      alertMs: config.disputeAlertMs,
      tell: (violation, event) => bookStage!.tellViolations([violation], event),
      failed: (error) => log.warn({ error: describeError(error) }, 'pixhook: could not read open disputes; the next scan tries again'),
    });
  if (disputeAlerts) disputeAlerts.start();
  let closing: Promise<boolean> | undefined;

  // Synchronous until something is really asynchronous (a remote store, an async handler): each
  // await is a tick, and an in-process store with a synchronous handler needs none.
  function acceptKnown(event: PixEvent, context: DeliveryContext): MaybePromise<AcceptResult> {
    // 1. The key, then the claim, before any side effect.
    const key = config.dedupeKey(event);
    if (typeof key !== 'string' || key === '') throw new PixhookError('internal_error', 'dedupeKey must return a non-empty string');
    // Durable, on a queue that claims: the add is the claim, and the order and the book are the worker's, so no run
    // is made here (no owner, no claim to hold). A Pix to another key is held in the book at intake (below), so it
    // takes the store's claim.
    if (queueAsClaim !== undefined && !heldAtIntake(event)) {
      return queueAsClaim({
        event,
        key,
        body: context.body ?? JSON.stringify(event.payload),
        link: context.trace ?? scope.currentTrace(),
        journal: writer && context.journal,
      });
    }
    const run = new Run(scope, event, key, newOwner(), context);
    // The resource's lease, the claim and the book's read in one step (Redis: one script), so the book always decides
    // under the lease; the step reads the claim first, so a delivery already done (or in flight) answers before it queues.
    if (joined !== undefined) return bookStage!.claimAndRecord(joined, run);
    let claiming: MaybePromise<ClaimResult>;
    try {
      claiming = store.claim(key, run.owner, config.claimTtlMs);
    } catch (error) {
      return storeUnavailable(error, run);
    }
    if (mode === 'durable') return andThen(claiming, claimedToQueue, storeUnavailable, run);
    // The resource's lease is asked for beside the claim (one round trip); given back unless claimed.
    order.prefetch(run);
    return andThen(claiming, claimed, claimFailed, run);
  }

  /**
   * Durable intake: the claim, then the job. The order and the book are the worker's, where the handlers run,
   * so a fact is applied when its job succeeds. Only what the receiver alone can judge stops here: a Pix to
   * another key (`keyKnown: false`) is held in the book and never queued.
   */
  function claimedToQueue(result: ClaimResult, run: Run): MaybePromise<AcceptResult> {
    if (result === 'in_flight') return { reason: 'in_flight', key: run.key };
    const foreign = heldAtIntake(run.event);
    if (result === 'done') return foreign ? bookStage!.retryOfHeld(book!, run) : { reason: 'duplicate', key: run.key };
    return foreign ? bookStage!.recordInBook(book!, run) : dispatch(run);
  }

  /** Durable intake's one judgement of its own: a Pix to another key is held in the book, never queued. */
  function heldAtIntake(event: PixEvent): boolean {
    return book !== undefined && (event as { keyKnown?: boolean }).keyKnown === false;
  }

  function claimFailed(error: unknown, run: Run): AcceptResult {
    order.leave(run);
    return storeUnavailable(error, run);
  }

  function claimed(result: ClaimResult, run: Run): MaybePromise<AcceptResult> {
    if (result !== 'claimed') order.leave(run);
    if (result === 'done') return book === undefined ? { reason: 'duplicate', key: run.key } : bookStage!.retryOfHeld(book, run);
    if (result === 'in_flight') return { reason: 'in_flight', key: run.key };
    const entering = order.enter(run);
    // The delivery waits for its resource's lease (another event of it runs, or a remote store answers): its claim
    // is held (pinned in process, renewed elsewhere) from now on, so a wait or a stall past claimTtlMs never lets
    // a retry claim and run it too.
    if (isPromise(entering)) run.hold();
    return andThen(entering, enteredClaimed, enterFailed, run);
  }

  // The resource's lease, before the book decides; 503 `resource_busy` (the claim given back) past `orderWaitMs`.
  // Made once, not per delivery.
  // A claim that could not be renewed while the delivery waited (a remote store) may be another run's now: never run it.
  const lostWhileWaiting = 'dedupe claim: could not be renewed while the delivery waited for its resource order';
  const enteredClaimed = (entered: boolean, run: Run): MaybePromise<AcceptResult> =>
    !entered ? busy(run) : run.lost ? busy(run, lostWhileWaiting) : claimedInOrder(run);

  function enterFailed(error: unknown, run: Run): Promise<AcceptResult> {
    return busy(run, 'resource order: ' + describeError(error));
  }

  function busy(run: Run, hint?: string): Promise<AcceptResult> {
    return run.release().then(() => ({
      reason: hint === undefined ? 'resource_busy' : 'store_unavailable',
      key: run.key,
      ...(hint !== undefined && { hint }),
    }));
  }

  function claimedInOrder(run: Run): MaybePromise<AcceptResult> {
    // 2. The payment book, before any named handler: a hold ends here, a flag rides on the event.
    if (book !== undefined) return bookStage!.recordInBook(book, run);
    // 3. Dispatch and acknowledge, as the mode says.
    return dispatch(run);
  }

  function acceptDelivery(event: PixEvent | UnknownEvent, context: DeliveryContext): MaybePromise<AcceptResult> {
    let accepted: MaybePromise<AcceptResult>;
    try {
      accepted = event.kind === 'unknown' ? acceptUnknown(scope, event, context) : acceptKnown(event, context);
    } catch (error) {
      // Only a bug (ours, or a custom dedupeKey/store) lands here; the process must not crash on it.
      return acceptFailed(error);
    }
    if (!isPromise(accepted)) return accepted;
    // An answer still pending (an inline run, the book, a remote store) is in flight: `drain()` waits for it.
    const answering = accepted.then(same, acceptFailed);
    work.track(answering);
    return answering;
  }

  const drain = (timeoutMs?: number): Promise<boolean> => work.drain(timeoutMs ?? worstRunMs(config));
  const processing: DeliveryProcessing = {
    mode,
    ...(config.store.quarantine && { quarantine: config.store.quarantine }),
    hasWaitUntil: config.waitUntil !== undefined,
    ...registrationOf(() => processing, handlers),
    onViolation(handler) {
      if (bookStage === undefined)
        throw new PixhookConfigError('pixhook: `onViolation` needs a `book` (createProcessing({ book })): nothing is checked without one.');
      bookStage.violationHandlers.push(handler);
      return processing;
    },
    release: (heldId, trail) => releaseHeld({ scope, book, newOwner }, heldId, trail),
    checkDisputes: () => (disputeAlerts ? disputeAlerts.check() : Promise.resolve(0)),
    async accept(event, options = {}) {
      return processing.acceptNow(event, options);
    },
    acceptNow(event, options = {}) {
      const context = contextOf(options);
      if (writer !== undefined && context.replayOf !== undefined) return journalReplay(writer, event, context, acceptDelivery);
      return acceptDelivery(event, context);
    },
    acceptDelivery,
    journalWriter: writer,
    hasBook: book !== undefined,
    health: () => checkHealth({ store: config.store, book, journal: config.journal, queue: config.queue }, config.storeTimeoutMs),
    runQueued: (job, run) => runQueued(scope, job, run, newOwner(), book && (async (queued) => bookStage!.recordInBook(book, queued))),
    drain: (drainOptions = {}) => drain(drainOptions.timeoutMs),
    close(closeOptions = {}) {
      if (closing !== undefined) return closing;
      // Timers first: a scan must not start while the last runs drain.
      if (disputeAlerts) disputeAlerts.stop();
      closing = drain(closeOptions.timeoutMs);
      return closing;
    },
    metrics: () => ({ ...metrics.snapshot(), journalFailures: writer?.failures ?? 0 }),
    handlerCount: () => handlers.handlerCount(),
  };
  return processing;
}

/** The longest one accepted run can take: the default bound of `drain` and `close`. */
function worstRunMs(config: ReturnType<typeof resolveProcessingOptions>): number {
  return config.mode === 'background'
    ? config.retry.attempts * config.handlerTimeoutMs + config.retry.totalDelayMs
    : config.handlerTimeoutMs;
}

const same = <T>(value: T): T => value;

function acknowledged(reason: ProcessingReason | undefined, run: Run): AcceptResult {
  if (reason === undefined) return { key: run.key };
  return run.hint === undefined ? { key: run.key, reason } : { key: run.key, reason, hint: run.hint };
}

function acceptFailed(error: unknown): AcceptResult {
  return { reason: 'internal_error', hint: describeError(error) };
}

function storeUnavailable(error: unknown, run: Run): AcceptResult {
  return { reason: 'store_unavailable', key: run.key, hint: describeError(error) };
}
