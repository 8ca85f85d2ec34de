import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, type QueuedEvent } from '../../src/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// The real OpenTelemetry SDK with in-memory exporters, and real pino.
const secret = 'whsec_otel';
const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  contextManager.enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
afterAll(() => {
  trace.disable();
  metrics.disable();
  context.disable();
});
beforeEach(() => spans.reset());

function delivery(id: string, extra: Record<string, unknown> = {}) {
  const body = bytesOf({
    id: `d_${id}`,
    type: 'transaction',
    event: 'transaction_paid',
    scope: 'postback',
    transaction: { id, amount: 500, status: 'paid' },
    ...extra,
  });
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

const named = (name: string) => spans.getFinishedSpans().filter((s) => s.name === name);
const linkedTo = (run: ReadableSpan, receive: ReadableSpan) =>
  run.links.some((l) => l.context.traceId === receive.spanContext().traceId && l.context.spanId === receive.spanContext().spanId);

describe('OpenTelemetry (pixhook/otel)', () => {
  it('inline: one `pixhook receive` span with the event, key, mode, status and reason; the handler span is its child and linked to it', async () => {
    const receiver = createReceiver({ secret, telemetry: openTelemetry() }).on('transaction_paid', () => {});
    await receiver.receive(delivery('tx_otel_1'));
    await receiver.receive(delivery('tx_otel_1'));
    const [first, second] = named('pixhook receive');
    expect(first!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'messaging.system': 'pixhook',
      'messaging.operation.type': 'receive',
      'messaging.message.id': 'd_tx_otel_1',
      'pixhook.event.name': 'transaction_paid',
      'pixhook.dedupe.key': 'transaction_paid:tx_otel_1:paid:500',
      'pixhook.mode': 'inline',
      'pixhook.reason': 'handled',
    });
    expect(second!.attributes['pixhook.reason']).toBe('duplicate');
    const [run] = named('pixhook handle transaction_paid');
    expect(run!.attributes).toMatchObject({ 'messaging.operation.type': 'process', 'pixhook.outcome': 'handled', 'pixhook.attempt': 1 });
    expect(run!.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
    expect(linkedTo(run!, first!)).toBe(true);
  });

  it('background: the handler runs after the answer, in its own trace, linked to the delivery span', async () => {
    const receiver = createReceiver({ secret, mode: 'background', telemetry: openTelemetry() }).on('transaction_paid', async () => {
      await new Promise((r) => setTimeout(r, 10));
    });
    await receiver.receive(delivery('tx_otel_bg'));
    expect(named('pixhook handle transaction_paid')).toHaveLength(0);
    await receiver.drain();
    const [receive] = named('pixhook receive');
    const [run] = named('pixhook handle transaction_paid');
    expect(linkedTo(run!, receive!)).toBe(true);
  });

  it('durable: the job carries the trace context; the worker’s handler span links to the delivery span', async () => {
    const jobs: QueuedEvent[] = [];
    const receiver = createReceiver({
      secret,
      mode: 'durable',
      telemetry: openTelemetry(),
      queue: { enqueue: async (job) => void jobs.push(job) },
    });
    await receiver.receive(delivery('tx_otel_durable'));
    expect(jobs[0]!.trace?.['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    // A worker in another process: its own processing, no receiver, the job's JSON.
    const worker = createProcessing({ telemetry: openTelemetry() }).on('transaction_paid', () => {
      throw new Error('ledger down');
    });
    await expect(worker.runQueued(JSON.parse(JSON.stringify(jobs[0])) as QueuedEvent, { attempt: 1, final: false })).rejects.toThrow(
      'ledger down',
    );
    const [receive] = named('pixhook receive');
    const [run] = named('pixhook handle transaction_paid');
    expect(linkedTo(run!, receive!)).toBe(true);
    expect(run!.attributes).toMatchObject({ 'pixhook.mode': 'durable', 'pixhook.outcome': 'failed' });
    expect(run!.status.code).toBe(2); // ERROR
  });

  it('metrics: answers and their duration, and handler runs by outcome, beside the Prometheus text', async () => {
    const receiver = createReceiver({ secret, telemetry: openTelemetry() }).on('transaction_paid', () => {});
    await receiver.receive(delivery('tx_otel_m'));
    await receiver.receive({ ...delivery('tx_otel_m'), headers: { 'x-signature': 'sha256=00' } });
    await reader.forceFlush();
    const exported = metricExporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
    const byName = (name: string) => exported.filter((m) => m.descriptor.name === name).at(-1);
    const answered = byName('pixhook.deliveries')!.dataPoints as { attributes: Record<string, unknown>; value: number }[];
    expect(
      answered.some((p) => p.attributes['pixhook.reason'] === 'signature_malformed' && p.attributes['http.response.status_code'] === 401),
    ).toBe(true);
    expect(byName('http.server.request.duration')!.descriptor.unit).toBe('s');
    const runs = byName('pixhook.handler.runs')!.dataPoints as { attributes: Record<string, unknown>; value: number }[];
    expect(runs.some((p) => p.attributes['pixhook.outcome'] === 'handled' && p.value >= 1)).toBe(true);
  });

  it('real pino: a log line carries trace_id and span_id of the active delivery span', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()),
    });
    const logger = pino({ level: 'info' }, sink);
    const receiver = createReceiver({ secret, logger, telemetry: openTelemetry() }).on('transaction_paid', () => {});
    await receiver.receive(delivery('tx_otel_log'));
    await new Promise((r) => setImmediate(r));
    const line = lines.find((l) => l['msg'] === 'pixhook: delivery');
    const [receive] = named('pixhook receive');
    expect(line).toMatchObject({
      level: 30,
      status: 200,
      event: 'transaction_paid',
      trace_id: receive!.spanContext().traceId,
      span_id: receive!.spanContext().spanId,
    });
  });

  it('pino without telemetry: the same structured line, no trace fields, and a secret never logged', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const receiver = createReceiver({ secret, logger: pino(sink) }).on('transaction_paid', () => {});
    await receiver.receive({ ...delivery('tx_pino'), headers: { 'x-signature': signBytes(bytesOf({}), 'wrong') } });
    await new Promise((r) => setImmediate(r));
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.find((l) => l['msg'] === 'pixhook: delivery')).toMatchObject({ level: 40, status: 401, reason: 'signature_mismatch' });
    expect(parsed.every((l) => l['trace_id'] === undefined)).toBe(true);
    expect(lines.join('')).not.toContain(secret);
  });
});
