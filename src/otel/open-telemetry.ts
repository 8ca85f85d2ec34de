import { context, metrics, SpanKind, SpanStatusCode, trace, type Link, type Meter, type Span, type Tracer } from '@opentelemetry/api';
import type { Telemetry, TelemetrySpan } from '../index.js';
import { describeError } from '../shared/describe-error.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface OpenTelemetryOptions {
  /** Default: the global tracer provider's `pixhook` tracer. */
  tracer?: Tracer;
  /** Default: the global meter provider's `pixhook` meter. */
  meter?: Meter;
}

/**
 * pixhook's spans and metrics on OpenTelemetry: `createReceiver({ ..., telemetry: openTelemetry() })`.
 * Spans: `pixhook receive` (SERVER, per delivery) and `pixhook handle <event>` (CONSUMER, per handler
 * run, linked to its delivery). Metrics: `http.server.request.duration` (s), `pixhook.deliveries`,
 * `pixhook.handler.runs`. Attributes follow the HTTP server and messaging semantic conventions.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  refuseUnknownOptions(options, openTelemetryOptionNames, 'openTelemetry');
  const tracer = options.tracer ?? trace.getTracer('pixhook');
  const meter = options.meter ?? metrics.getMeter('pixhook');
  const duration = meter.createHistogram('http.server.request.duration', {
    unit: 's',
    description: 'Time from receiving a delivery to its answer.',
  });
  const deliveries = meter.createCounter('pixhook.deliveries', { description: 'Deliveries answered, by status and reason.' });
  const runs = meter.createCounter('pixhook.handler.runs', { description: 'Handler runs, by outcome.' });

  const wrap = (span: Span): TelemetrySpan => ({
    setAttributes: (attributes) => void span.setAttributes(attributes),
    fail(error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: typeof error === 'string' ? error : describeError(error) });
      if (error instanceof Error) span.recordException(error);
    },
    end: () => span.end(),
    run: (fn) => context.with(trace.setSpan(context.active(), span), fn),
  });

  return {
    startDelivery: (attributes) => wrap(tracer.startSpan('pixhook receive', { kind: SpanKind.SERVER, attributes })),
    startRun(name, attributes, link) {
      const linked = linkFrom(link);
      return wrap(tracer.startSpan(name, { kind: SpanKind.CONSUMER, attributes, ...(linked && { links: [linked] }) }));
    },
    currentTrace() {
      const span = trace.getSpan(context.active());
      const ctx = span?.spanContext();
      if (!ctx || !trace.isSpanContextValid(ctx)) return undefined;
      return { traceparent: `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 1).toString(16).padStart(2, '0')}` };
    },
    logContext() {
      const ctx = trace.getSpan(context.active())?.spanContext();
      if (!ctx || !trace.isSpanContextValid(ctx)) return undefined;
      return { trace_id: ctx.traceId, span_id: ctx.spanId };
    },
    recordAnswer(durationMs, attributes) {
      duration.record(durationMs / 1000, attributes);
      deliveries.add(1, attributes);
    },
    recordRun: (outcome, attributes) => runs.add(1, { ...attributes, 'pixhook.outcome': outcome }),
  };
}

/** A W3C `traceparent` (`00-<trace>-<span>-<flags>`) as a span link. */
function linkFrom(carrier: Record<string, string> | undefined): Link | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(carrier?.['traceparent'] ?? '');
  if (!match) return undefined;
  return { context: { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true } };
}

/** Every option openTelemetry takes. */
const openTelemetryOptionNames = optionNames<OpenTelemetryOptions>()(['tracer', 'meter']);
