import type { JsonObject } from './event-types.js';

/** An event's `payload` and `raw`: one object under both names. */
export function bodyOf(payload: JsonObject): { payload: JsonObject; raw: JsonObject } {
  return { payload, raw: payload };
}
