import type { ReasonCode } from './reasons.js';

/** Upper bounds (ms) of the acknowledgement-latency histogram, Prometheus-style (cumulative). */
export const ackLatencyBucketsMs = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 8000, 10000] as const;

export interface ReceiverMetrics {
  /** Every call of `receive`. */
  received: number;
  /** Answers that were not a 2xx, by reason. */
  rejected: Partial<Record<ReasonCode, number>>;
  duplicates: number;
  unknownEvents: number;
  /** Events whose handlers all succeeded. */
  handled: number;
  /** Handler runs that failed (each retry counts). */
  failed: number;
  /** Durable jobs that failed their last attempt. */
  deadLettered: number;
  /** Time from `receive` to its answer. `buckets[i]` counts answers ≤ `ackLatencyBucketsMs[i]`. */
  ackLatencyMs: { count: number; sum: number; buckets: number[] };
}

export interface MetricsRecorder {
  snapshot(): ReceiverMetrics;
  answered(status: number, reason: ReasonCode | undefined, ms: number): void;
  handled(): void;
  failed(): void;
  deadLettered(): void;
}

export function createMetricsRecorder(): MetricsRecorder {
  const m: ReceiverMetrics = {
    received: 0,
    rejected: {},
    duplicates: 0,
    unknownEvents: 0,
    handled: 0,
    failed: 0,
    deadLettered: 0,
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
    handled: () => void m.handled++,
    failed: () => void m.failed++,
    deadLettered: () => void m.deadLettered++,
  };
}
