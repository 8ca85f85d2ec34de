import type { ReceiveResult } from './receive-answer.js';

/** The fields of a delivery's log line; `guardLogger` escapes the control characters of every untrusted string in them. */
export function logFields(result: ReceiveResult, ms: number): Record<string, unknown> {
  const event = result.event;
  const resource = event?.kind === 'transaction' ? event.transaction : event?.kind === 'transfer' ? event.transfer : undefined;
  return {
    status: result.status,
    reason: result.reason ?? 'handled',
    ...(event && { event: event.name }),
    ...(resource && { resourceId: resource.id, resourceStatus: resource.status }),
    ...(result.key && { key: result.key }),
    ...(result.hint && { hint: result.hint }),
    durationMs: Math.round(ms * 1000) / 1000,
  };
}
