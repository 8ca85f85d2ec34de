import type { ReasonCode } from '../shared/reasons.js';

/** Upper bounds (ms) of the acknowledgement-latency histogram, Prometheus-style (cumulative). */
export const ackLatencyBucketsMs = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 8000, 10000] as const;

/** What processing counts, whoever handed it the events (receiver, worker, reconciler, replay). */
export interface ProcessingMetrics {
  /** Events whose handlers all succeeded. */
  handled: number;
  /** Handler runs that failed (each retry counts), timed-out and claim-lost runs included. */
  failed: number;
  /** Runs that passed `handlerTimeoutMs`. */
  timedOut: number;
  /** Runs stopped because their claim could not be renewed. */
  claimsLost: number;
  /** Durable jobs that failed their last attempt. */
  deadLettered: number;
  /** Runs whose handler found the event already applied (`context.markDuplicate()`, e.g. a transactional inbox). */
  alreadyApplied: number;
  /** Journal writes that failed, timed out or were dropped (a journal not keeping up); 0 without a `journal`. */
  journalFailures: number;
}

export interface ReceiverMetrics extends ProcessingMetrics {
  /** Every call of `receive`. */
  received: number;
  /** Answers that were not a 2xx, by reason. */
  rejected: Partial<Record<ReasonCode, number>>;
  duplicates: number;
  unknownEvents: number;
  /** Verified deliveries that could not be read as events (kept for `onInvalid` / the quarantine). */
  invalid: number;
  /** Time from `receive` to its answer. `buckets[i]` counts answers ≤ `ackLatencyBucketsMs[i]`. */
  ackLatencyMs: { count: number; sum: number; buckets: number[] };
}

export interface ProcessingMetricsRecorder {
  snapshot(): ProcessingMetrics;
  handled(): void;
  duplicate(): void;
  failed(outcome: { timedOut?: true; claimLost?: true }): void;
  deadLettered(): void;
}

export function createProcessingMetrics(): ProcessingMetricsRecorder {
  const m: ProcessingMetrics = {
    handled: 0,
    failed: 0,
    timedOut: 0,
    claimsLost: 0,
    deadLettered: 0,
    alreadyApplied: 0,
    journalFailures: 0,
  };
  return {
    snapshot: () => ({ ...m }),
    handled: () => void m.handled++,
    duplicate: () => void m.alreadyApplied++,
    failed(outcome) {
      m.failed++;
      if (outcome.timedOut) m.timedOut++;
      if (outcome.claimLost) m.claimsLost++;
    },
    deadLettered: () => void m.deadLettered++,
  };
}

type AnswerMetrics = Omit<ReceiverMetrics, keyof ProcessingMetrics>;

interface AnswerMetricsRecorder {
  snapshot(): AnswerMetrics;
  answered(status: number, reason: ReasonCode | undefined, ms: number): void;
  invalid(): void;
}

export function createAnswerMetrics(): AnswerMetricsRecorder {
  const m: AnswerMetrics = {
    received: 0,
    rejected: {},
    duplicates: 0,
    unknownEvents: 0,
    invalid: 0,
    ackLatencyMs: { count: 0, sum: 0, buckets: ackLatencyBucketsMs.map(() => 0) },
  };
  return {
    snapshot: () => structuredClone(m),
    answered(status, reason, ms) {
      m.received++;
      if (reason === 'duplicate') m.duplicates++;
      else if (reason === 'unknown_event') m.unknownEvents++;
      else if (reason !== undefined && status >= 300) m.rejected[reason] = (m.rejected[reason] ?? 0) + 1;
      const h = m.ackLatencyMs;
      h.count++;
      h.sum += ms;
      for (let i = 0; i < ackLatencyBucketsMs.length; i++) if (ms <= ackLatencyBucketsMs[i]!) h.buckets[i]!++;
    },
    invalid: () => void m.invalid++,
  };
}
