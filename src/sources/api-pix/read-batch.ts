import { isJsonObject } from '../../events/lenient-reader.js';
import type { ApiPixEvent, EventSource } from '../../events/event-types.js';
import { readPixItem, recurrenceEvent, recurringChargeEvent } from '../../events/read-api-pix.js';
import type { EssentialFailure } from '../../events/read-essentials.js';

/** Which callback a call is: `/pix` (`{ pix: [...] }`), `/rec` (`{ recs: [...] }`) or `/cobr` (`{ cobsr: [...] }`). */
type ApiPixCallback = 'pix' | 'rec' | 'cobr';

type BatchRead = { ok: true; callback: ApiPixCallback; items: readonly unknown[]; base: string } | { ok: false; message: string };

const listNames: Readonly<Record<string, ApiPixCallback>> = { pix: 'pix', recs: 'rec', cobsr: 'cobr' };

/**
 * The items of a call, however PSPs really send them: `{ pix: [...] }`, a bare array (Inter), one Pix
 * object (the spec's own pixWebhook1/2 examples), a single object where a list belongs. The body decides;
 * the URL's suffix (`/pix`, `/rec`, `/cobr`, with or without a trailing slash) only names a bare array.
 */
export function readBatch(value: unknown, url: string | undefined): BatchRead {
  if (Array.isArray(value)) return { ok: true, callback: suffixOf(url) ?? 'pix', items: value, base: '' };
  if (!isJsonObject(value))
    return { ok: false, message: '(root): expected { "pix": [...] }, { "recs": [...] }, { "cobsr": [...] } or an array' };
  for (const name of Object.keys(listNames)) {
    const list = value[name];
    if (list === undefined || list === null) continue;
    const callback = listNames[name]!;
    if (Array.isArray(list)) return { ok: true, callback, items: list, base: name };
    if (isJsonObject(list)) return { ok: true, callback, items: [list], base: name };
    return { ok: false, message: `${name}: expected a list of items` };
  }
  if (value['endToEndId'] !== undefined) return { ok: true, callback: 'pix', items: [value], base: '' };
  return { ok: false, message: '(root): expected "pix", "recs" or "cobsr" (or a Pix with its endToEndId)' };
}

/**
 * The last non-empty path segment when it is a callback suffix: `/hook/pix`, `/hook/pix/`, `/hook//pix?x=1`;
 * else the suffix a PSP appended to a registered query (`?secret=…/rec`).
 */
function suffixOf(url: string | undefined): ApiPixCallback | undefined {
  if (url === undefined) return undefined;
  const [path, query = ''] = url.split('#', 1)[0]!.split('?', 2) as [string, string?];
  const segments = path.split('/').filter((segment) => segment !== '');
  const last = segments.at(-1)?.toLowerCase();
  if (last === 'pix' || last === 'rec' || last === 'cobr') return last;
  const appended = /\/(pix|rec|cobr)\/?$/i.exec(query)?.[1]?.toLowerCase();
  return appended as ApiPixCallback | undefined;
}

/** One item of a call read as its events (a Pix may carry refunds), or the reasons it cannot be. */
export function readItem(
  callback: ApiPixCallback,
  item: unknown,
  base: string,
  source: EventSource = 'webhook',
): { events: ApiPixEvent[]; failures: EssentialFailure[] } {
  if (callback === 'pix') return readPixItem(item, base, source);
  const read = callback === 'rec' ? recurrenceEvent(item, base, source) : recurringChargeEvent(item, base, source);
  return read.ok ? { events: [read.event], failures: [] } : { events: [], failures: [{ path: read.path, message: read.message }] };
}

/** A kept call's events again (a replay), every readable item in order; undefined when the body is not a call. */
export function readCall(value: unknown, source: EventSource): ApiPixEvent[] | undefined {
  const batch = readBatch(value, undefined);
  if (!batch.ok) return undefined;
  const events: ApiPixEvent[] = [];
  for (let i = 0; i < batch.items.length; i++)
    events.push(...readItem(batch.callback, batch.items[i], batch.base === '' ? String(i) : `${batch.base}.${String(i)}`, source).events);
  return events;
}
