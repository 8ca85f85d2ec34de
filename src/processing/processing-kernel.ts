import type { ClaimKeeper, HeldClaim } from '../dedupe/claim-keeper.js';
import type { DedupeStore } from '../dedupe/dedupe-store.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { ProcessingMetricsRecorder } from '../metrics/receiver-metrics.js';
import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { ResolvedProcessingOptions } from './processing-options.js';
import type { AttemptOutcome } from './run-attempt.js';
import { runTracedAttempt } from './traced-attempt.js';

/** What every acknowledgement mode uses: run an attempt, then settle the claim one way or the other. */
export interface ProcessingKernel {
  readonly config: ResolvedProcessingOptions;
  readonly store: DedupeStore;
  readonly keeper: ClaimKeeper;
  readonly handlers: HandlerRegistry;
  readonly metrics: ProcessingMetricsRecorder;
  readonly log: Logger;
  attempt(event: PixEvent, claim: HeldClaim, attempt: number, link?: Record<string, string>): AttemptOutcome | Promise<AttemptOutcome>;
  /** The run succeeded (or found the event already applied): mark the key done (never throws; a failure to mark is logged). */
  succeed(claim: HeldClaim, outcome?: AttemptOutcome): void | Promise<void>;
  /** The run failed for good: release the claim, log, tell `onError`. Never rejects. */
  fail(event: PixEvent | UnknownEvent, claim: HeldClaim | undefined, outcome: AttemptOutcome, attempt: number): Promise<void>;
  /** Gives a claim back (never rejects). */
  release(claim: HeldClaim): Promise<void>;
  /** Work after the answer: tracked for `drain()` and handed to the platform's `waitUntil`. */
  keepAlive(work: Promise<unknown>, waitUntil?: (promise: Promise<unknown>) => void): void;
  track(work: Promise<unknown>): void;
}

export function createProcessingKernel(parts: {
  config: ResolvedProcessingOptions;
  store: DedupeStore;
  keeper: ClaimKeeper;
  handlers: HandlerRegistry;
  metrics: ProcessingMetricsRecorder;
  pending: Set<Promise<unknown>>;
}): ProcessingKernel {
  const { config, store, keeper, handlers, metrics, pending } = parts;
  const log = config.logger;

  function warnUnmarked(marked: boolean, claim: HeldClaim): void {
    if (!marked) log.warn({ key: claim.key }, 'pixhook: another run took this key before the handled event was marked done');
  }

  function failedToMark(error: unknown, claim: HeldClaim): void {
    // Handled already: answering an error would only make the sender run it again.
    log.error({ key: claim.key, error: describeError(error) }, 'pixhook: could not mark an event done; its claim will expire');
  }

  const kernel: ProcessingKernel = {
    config,
    store,
    keeper,
    handlers,
    metrics,
    log,
    attempt: (event, claim, attempt, link) =>
      runTracedAttempt(
        { handlers, event, attempt, mode: config.mode, source: event.source ?? 'webhook', limitMs: config.handlerTimeoutMs, claim, key: claim.key },
        config.telemetry,
        link,
      ),
    succeed(claim, outcome) {
      keeper.drop(claim);
      if (outcome?.ok && outcome.duplicate) metrics.duplicate();
      else metrics.handled();
      try {
        const marking = store.complete(claim.key, claim.owner, config.dedupeTtlMs);
        if (typeof marking === 'boolean') return warnUnmarked(marking, claim);
        return marking.then(
          (marked) => warnUnmarked(marked, claim),
          (error: unknown) => failedToMark(error, claim),
        );
      } catch (error) {
        return failedToMark(error, claim);
      }
    },
    async fail(event, claim, outcome, attempt) {
      const error = outcome.ok ? undefined : outcome.error;
      if (claim) await kernel.release(claim);
      log.error(
        { ...(claim && { key: claim.key }), event: event.name, attempt, error: describeError(error) },
        outcome.ok === false && outcome.timedOut ? 'pixhook: handler timed out' : 'pixhook: handler failed',
      );
      await handlers.reportError({ error, event, ...(claim && { key: claim.key }), attempt, mode: config.mode });
    },
    async release(claim) {
      keeper.drop(claim);
      try {
        await store.release(claim.key, claim.owner);
      } catch (error) {
        log.error({ key: claim.key, error: describeError(error) }, 'pixhook: could not release a claim; it will expire');
      }
    },
    keepAlive(work, waitUntil) {
      kernel.track(work);
      const keeper = waitUntil ?? config.waitUntil;
      if (!keeper) return;
      try {
        keeper(work);
      } catch (error) {
        log.error({ error: describeError(error) }, 'pixhook: waitUntil threw; the work goes on unguarded');
      }
    },
    track(work) {
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      pending.add(settled);
      void settled.then(() => pending.delete(settled));
    },
  };
  return kernel;
}
