import type { PixEvent } from '../events/event-types.js';
import type { BookChannel } from './payment-book.js';

/** The channel an event came through: `reconcile` and `replay` by its source, a delivery by its `scope` (default `postback`). */
export function channelOf(event: PixEvent): BookChannel {
  if (event.source === 'reconcile' || event.source === 'replay') return event.source;
  return event.scope === 'user' ? 'user' : 'postback';
}
