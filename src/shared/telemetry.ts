/** Span and metric attributes: what the OpenTelemetry API accepts. */
export type TelemetryAttributes = Record<string, string | number | boolean>;

/** A span pixhook started; `run` makes it the active context for `fn` (so handler spans nest or link to it). */
export interface TelemetrySpan {
  setAttributes(attributes: TelemetryAttributes): void;
  fail(error: unknown): void;
  end(): void;
  run<T>(fn: () => T): T;
}

/**
 * What pixhook reports, through whatever implements it (`pixhook/otel` maps it onto OpenTelemetry).
 * Without one, pixhook does none of this work: one `undefined` check per delivery.
 */
export interface Telemetry {
  /** One span per delivery. */
  startDelivery(attributes: TelemetryAttributes): TelemetrySpan;
  /** One span per handler run, linked to the delivery's span (`link`: its W3C trace context). */
  startRun(name: string, attributes: TelemetryAttributes, link: Record<string, string> | undefined): TelemetrySpan;
  /** The active span's W3C trace context (`traceparent`), to carry into a durable job. */
  currentTrace(): Record<string, string> | undefined;
  /** `trace_id` and `span_id` of the active span, for log lines. */
  logContext(): Record<string, string> | undefined;
  /** An answer, with its duration. */
  recordAnswer(durationMs: number, attributes: TelemetryAttributes): void;
  /** A handler run's end: `handled`, `failed`, `timed_out`, `claim_lost`, `duplicate`. */
  recordRun(outcome: string, attributes: TelemetryAttributes): void;
}
