import { eventKey } from '../../events/event-key.js';
import type { PixEvent } from '../../events/event-types.js';

/**
 * A PSP event's default dedupe key: `<provider>:` then the fact as the gateway's key states it (name,
 * charge id, status, amount, endToEndId, refund and dispute identity; `eventKey`). The provider first, so
 * two PSPs' charges that share an id are two facts. Pure.
 */
export function factKey(event: PixEvent): string {
  return event.provider + ':' + eventKey(event);
}
