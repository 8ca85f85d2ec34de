import { isApiPixEventName } from '../../events/event-names.js';
import type { ApiPixEvent, EventSource, JsonObject } from '../../events/event-types.js';
import { readApiPixEnvelope } from '../../events/read-api-pix.js';

/** An API Pix event again from its one-event envelope (`event.payload`: `{ event, pix }`, `{ event, rec }`…), no network. */
export function rereadApiPix(payload: JsonObject, source: EventSource): ApiPixEvent | undefined {
  const name = payload['event'];
  if (typeof name !== 'string' || !isApiPixEventName(name)) return undefined;
  const read = readApiPixEnvelope(name, payload, source);
  return read.ok ? read.event : undefined;
}
