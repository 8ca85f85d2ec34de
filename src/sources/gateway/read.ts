import type { EventSource, JsonObject, PixEvent } from '../../events/event-types.js';
import { normalizeEvent } from '../../events/normalize-event.js';
import type { SourceRead } from '../source.js';

/** A gateway body as the one union: one event, or why the body is not an event (an unknown name reads as none). */
export function readGateway(json: unknown, source: EventSource): SourceRead {
  const normalized = normalizeEvent(json, { source });
  if (!normalized.ok)
    return {
      events: [],
      hints: [],
      failures: [],
      invalid: { detail: normalized.message, message: `The body is not a known event shape: ${normalized.message}` },
    };
  return { events: normalized.event.kind === 'unknown' ? [] : [normalized.event], hints: [], failures: [] };
}

/** A gateway event again from its payload (the body it was read from), no network. */
export function rereadGateway(payload: JsonObject, source: EventSource): PixEvent | undefined {
  const normalized = normalizeEvent(payload, { source });
  return normalized.ok && normalized.event.kind !== 'unknown' ? normalized.event : undefined;
}
