import { ackLatencyBucketsMs, type ReceiverMetrics } from './receiver-metrics.js';

/**
 * The receiver's counters in Prometheus' text exposition format, for a `/metrics` route or to
 * append to another registry's output. No dependency on a Prometheus client.
 */
export function metricsToPrometheus(metrics: ReceiverMetrics, options: { prefix?: string } = {}): string {
  const p = options.prefix ?? 'pixhook';
  const lines: string[] = [];
  const counter = (name: string, help: string, value: number) =>
    lines.push(`# HELP ${p}_${name} ${help}`, `# TYPE ${p}_${name} counter`, `${p}_${name} ${value}`);
  counter('received_total', 'Deliveries received.', metrics.received);
  counter('duplicates_total', 'Verified duplicate deliveries answered 200 duplicate.', metrics.duplicates);
  counter('unknown_events_total', 'Verified deliveries with an unknown event name.', metrics.unknownEvents);
  counter('handled_total', 'Events whose handlers all succeeded.', metrics.handled);
  counter('failed_total', 'Handler runs that failed (each retry counts).', metrics.failed);
  counter('timed_out_total', 'Handler runs that passed handlerTimeoutMs.', metrics.timedOut);
  counter('claims_lost_total', 'Handler runs stopped because their claim could not be renewed.', metrics.claimsLost);
  counter('invalid_total', 'Verified deliveries that could not be read as events.', metrics.invalid);
  counter('already_applied_total', 'Runs whose handler found the event already applied (a transactional inbox).', metrics.alreadyApplied);
  counter('dead_lettered_total', 'Durable jobs that failed their last attempt.', metrics.deadLettered);
  counter('journal_failures_total', 'Delivery journal writes that failed, timed out or were dropped.', metrics.journalFailures);
  lines.push(`# HELP ${p}_rejected_total Non-2xx answers, by reason.`, `# TYPE ${p}_rejected_total counter`);
  for (const [reason, n] of Object.entries(metrics.rejected)) lines.push(`${p}_rejected_total{reason="${reason}"} ${n ?? 0}`);
  const h = metrics.ackLatencyMs;
  lines.push(`# HELP ${p}_ack_latency_ms Time from receiving a delivery to its answer.`, `# TYPE ${p}_ack_latency_ms histogram`);
  ackLatencyBucketsMs.forEach((le, i) => lines.push(`${p}_ack_latency_ms_bucket{le="${le}"} ${h.buckets[i] ?? 0}`));
  lines.push(
    `${p}_ack_latency_ms_bucket{le="+Inf"} ${h.count}`,
    `${p}_ack_latency_ms_sum ${h.sum}`,
    `${p}_ack_latency_ms_count ${h.count}`,
  );
  return `${lines.join('\n')}\n`;
}
