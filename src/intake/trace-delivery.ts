import type { AckMode } from '../processing/processing-options.js';
import type { Telemetry, TelemetrySpan } from '../shared/telemetry.js';
import type { ReceiveRequest } from './receiver-types.js';
import type { ReceiveResult } from './receive-answer.js';

/**
 * One `pixhook receive` span around a delivery (HTTP server and messaging conventions), its
 * answer recorded as a metric. Handlers run inside it (inline) or link to it (background, durable).
 */
export async function traceDelivery(
  telemetry: Telemetry,
  request: ReceiveRequest,
  mode: AckMode,
  receive: (request: ReceiveRequest) => Promise<ReceiveResult>,
): Promise<ReceiveResult> {
  const startedAt = performance.now();
  let span: TelemetrySpan | undefined;
  try {
    span = telemetry.startDelivery({
      'http.request.method': request.method ?? 'POST',
      'messaging.system': 'pixhook',
      'messaging.operation.type': 'receive',
      'pixhook.mode': mode,
    });
  } catch {
    span = undefined;
  }
  if (span === undefined) return receive(request);
  const result = await span.run(() => receive(request));
  try {
    const event = result.event;
    const attributes = {
      'http.response.status_code': result.status,
      'pixhook.mode': mode,
      'pixhook.reason': result.reason ?? 'handled',
      ...(event !== undefined && { 'pixhook.event.name': event.name }),
      ...(event?.deliveryId !== undefined && { 'messaging.message.id': event.deliveryId }),
      ...(result.key !== undefined && { 'pixhook.dedupe.key': result.key }),
    };
    span.setAttributes(attributes);
    if (result.status >= 500) span.fail(result.reason ?? 'error');
    span.end();
    telemetry.recordAnswer(performance.now() - startedAt, {
      'http.response.status_code': result.status,
      'pixhook.reason': result.reason ?? 'handled',
      'pixhook.mode': mode,
    });
  } catch {
    // Telemetry is best effort: the answer stands.
  }
  return result;
}
