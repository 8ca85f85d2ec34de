import type { ApiPixEvent } from '../../events/event-types.js';
import type { EssentialFailure } from '../../events/read-essentials.js';

/**
 * One item's events after its receiving key (`chave`) is checked against the receiver's `keys`. A Pix to
 * another key, or to none, is never dispatched as the merchant's money: with a payment book its events go
 * on marked `keyKnown: false`, and the book holds them as `unknown_key` (listed, released by a person);
 * without one there is nobody to hold them, so none is returned and the item is kept as an unreadable one.
 */
export function checkItemKey(
  events: readonly ApiPixEvent[],
  keys: ReadonlySet<string>,
  held: boolean,
  base: string,
  failures: EssentialFailure[],
  /** Told the key seen (or `undefined`: none) of a Pix that is not dispatched as the merchant's money. */
  unknown: (seen: string | undefined) => void,
): readonly ApiPixEvent[] {
  const first = events[0];
  // A `/pix` item's first event is its `pix_received`; `/rec` and `/cobr` items name no key.
  if (first === undefined || first.name !== 'pix_received') return events;
  const key = first.pix.key;
  if (key !== undefined && keys.has(key)) return events;
  unknown(key);
  if (held) return events.map(foreign);
  const path = base === '' ? 'chave' : `${base}.chave`;
  failures.push({
    path,
    message: `${path}: ${key === undefined ? 'no receiving key given' : 'a key that is not one of `keys`'}; not dispatched (unknown_key)`,
  });
  return [];
}

function foreign(event: ApiPixEvent): ApiPixEvent {
  return event.name === 'pix_received' || event.name === 'pix_refund_updated' ? { ...event, keyKnown: false } : event;
}
