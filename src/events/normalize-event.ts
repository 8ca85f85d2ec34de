import { isPixEventName, isTransferEventName } from './event-names.js';
import type { EventSource, EventWarning, JsonObject, PayloadVariant, PixEvent, UnknownEvent } from './event-types.js';
import { failure, readEssentials } from './read-essentials.js';
import { readTransaction } from './read-transaction.js';
import { readTransfer } from './read-transfer.js';
import { readStatus } from './read-status.js';
import { asId, isJsonObject, LenientReader } from './lenient-reader.js';

export { isJsonObject } from './lenient-reader.js';

export interface NormalizeOptions {
  /** Where the event comes from. Default `webhook`. */
  source?: EventSource;
}

/**
 * `ok: false` only when an essential is wrong: the name, the resource, its id, status or amount. `path` is
 * the dotted path of the culprit (`''` for the root); `message` starts with it and says what was found.
 */
export type NormalizeResult =
  { ok: true; event: PixEvent } | { ok: true; event: UnknownEvent } | { ok: false; path: string; message: string };

// One frozen array for the common case: no allocation per event when everything read.
const noWarnings: readonly EventWarning[] = Object.freeze([]);

/**
 * Turns a verified JSON value into one typed event, whatever shape (A, B, short, transfer) it came in.
 * Strict about the essentials, lenient about the rest: a secondary field of the wrong type is left out of
 * the typed view and reported in `event.warnings`; `event.payload` keeps everything as received.
 * Unknown event names are not an error: they come back as `kind: 'unknown'`.
 */
export function normalizeEvent(value: unknown, options?: NormalizeOptions): NormalizeResult {
  const source = options?.source ?? 'webhook';
  if (!isJsonObject(value)) return { ok: false, ...failure('', '', 'expected a JSON object', value) };
  const name = value['event'];
  if (typeof name !== 'string' || name === '') {
    return { ok: false, ...failure('', 'event', 'expected the event name as a non-empty string', name) };
  }
  if (!isPixEventName(name)) {
    const deliveryId = asId(value['id']);
    const event: UnknownEvent = { kind: 'unknown', name, source, provider: 'gateway', payload: value, raw: value };
    if (deliveryId !== undefined) event.deliveryId = deliveryId;
    return { ok: true, event };
  }

  const transfer = isTransferEventName(name);
  let variant: PayloadVariant;
  let base: string;
  let resource: JsonObject;
  const data = value['data'];
  if (isJsonObject(data)) {
    variant = 'a';
    base = 'data';
    resource = data;
  } else {
    base = transfer ? 'transfer' : 'transaction';
    const found = value[base];
    if (!isJsonObject(found)) return { ok: false, ...failure('', base, `expected the ${base} object (or A's data)`, found) };
    resource = found;
    // The short form of B carries only id, type, event and the resource: no scope.
    variant = value['scope'] === undefined || value['scope'] === null ? 'short' : 'b';
  }

  const essentials = readEssentials(resource, base, variant);
  if ('message' in essentials) return { ok: false, ...essentials };

  const r = new LenientReader();
  const read = readStatus(name, essentials.status);
  if (read.note !== undefined) {
    r.warn(base, 'status', essentials.status, read.note);
    essentials.status = read.status;
  }
  const deliveryId = r.id(value['id'], '', 'id');
  const scope = r.text(value['scope'], '', 'scope');
  const timestamp = r.text(value['timestamp'], '', 'timestamp');
  const kind = transfer ? 'transfer' : 'transaction';
  const type = value['type'];
  if (typeof type === 'string' && type !== kind) r.warn('', 'type', type, `expected "${kind}"; the event name decides`);

  // The union is keyed by name; isTransferEventName proved which kind this name belongs to.
  const event = (
    transfer
      ? { kind, name, variant, source, provider: 'gateway', transfer: readTransfer(r, essentials, resource, base) }
      : { kind, name, variant, source, provider: 'gateway', transaction: readTransaction(r, essentials, resource, base, value) }
  ) as PixEvent;
  if (deliveryId !== undefined) event.deliveryId = deliveryId;
  if (scope !== undefined) event.scope = scope;
  if (timestamp !== undefined) event.timestamp = timestamp;
  event.warnings = r.warnings ?? noWarnings;
  event.payload = value;
  event.raw = value;
  return { ok: true, event };
}
