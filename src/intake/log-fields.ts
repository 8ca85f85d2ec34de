import type { Logger } from '../shared/logger.js';
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

/** A delivery's log line at the level its status calls for: error (5xx), warn (3xx, 4xx), info. */
export function logAnswer(log: Logger, result: ReceiveResult, fields: Record<string, unknown>, label: string): void {
  if (result.status >= 500) log.error(fields, label);
  else if (result.status >= 300) log.warn(fields, label);
  else log.info(fields, label);
}
