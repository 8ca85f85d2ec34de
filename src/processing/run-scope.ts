import type { ClaimKeeper } from '../dedupe/claim-keeper.js';
import type { DedupeStore } from '../dedupe/dedupe-store.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { JournalWriter } from '../journal/journal-writer.js';
import type { ProcessingMetricsRecorder } from '../metrics/receiver-metrics.js';
import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { HandlerRegistry } from './handler-registry.js';
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
