import type { ReconcilerMetrics } from './create-reconciler.js';

/** The reconciler's figures in the Prometheus text format, to append to `metricsToPrometheus`' output. */
export function reconcilerMetricsToPrometheus(metrics: ReconcilerMetrics, prefix = 'pixhook'): string {
  const lines = (name: string, type: 'gauge' | 'counter', help: string, value: number) => [
    `# HELP ${prefix}_${name} ${help}`,
    `# TYPE ${prefix}_${name} ${type}`,
    `${prefix}_${name} ${value}`,
  ];
  return [
    ...lines('reconcile_watched', 'gauge', 'Charges followed until a final status.', metrics.watched),
    ...lines('reconcile_checked_total', 'counter', 'Charges read from the gateway (one API call each).', metrics.checked),
    ...lines(
      'reconcile_recovered_total',
      'counter',
      'Final events the webhook never delivered, handled by the reconciler.',
      metrics.recovered,
    ),
    ...lines('reconcile_finished_total', 'counter', 'Charges no longer followed (final, or older than maxAgeMs).', metrics.finished),
    ...lines('reconcile_lag_seconds', 'gauge', 'Age of the oldest charge still followed.', metrics.lagMs / 1000),
    '',
  ].join('\n');
}
