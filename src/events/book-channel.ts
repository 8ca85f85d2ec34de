import type { PixEvent } from './event-types.js';

/** How an event reached pixhook: the charge's `postbackUrl`, a registered (`user`) webhook, the reconciler, or a replay. */
export type BookChannel = 'postback' | 'user' | 'reconcile' | 'replay';

/** The channel an event came through: `reconcile` and `replay` by its source, a delivery by its `scope` (default `postback`). */
export function channelOf(event: PixEvent): BookChannel {
  if (event.source === 'reconcile' || event.source === 'replay') return event.source;
  return event.scope === 'user' ? 'user' : 'postback';
}
