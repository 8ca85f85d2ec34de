import type { EventSource, JsonObject, PixEvent } from '../../events/event-types.js';
import { normalizeEvent } from '../../events/normalize-event.js';
import type { SourceRead } from '../source.js';

// Shared by every read: a gateway body holds no hints and no failing items, and the pipeline never writes to a read.
const none = Object.freeze([]) as never[];

/**
 * A gateway body as the one union: its one event (an unknown name as `unknown`, which the pipeline hands to
 * `onUnknown`), or why the body is not an event.
 */
export function readGateway(json: unknown, source: EventSource): SourceRead {
  const normalized = normalizeEvent(json, { source });
  if (!normalized.ok)
    return {
      events: none,
      hints: none,
      failures: none,
      invalid: { detail: normalized.message, message: `The body is not a known event shape: ${normalized.message}` },
    };
  const { event } = normalized;
  if (event.kind === 'unknown') return { events: none, hints: none, failures: none, unknown: event };
  return { events: [event], hints: none, failures: none };
}

/** A gateway event again from its payload (the body it was read from), no network. */
export function rereadGateway(payload: JsonObject, source: EventSource): PixEvent | undefined {
  const normalized = normalizeEvent(payload, { source });
  return normalized.ok && normalized.event.kind !== 'unknown' ? normalized.event : undefined;
}
