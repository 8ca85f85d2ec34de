import type { PixEvent } from './event-types.js';

/** `transaction_paid:<transaction id>:paid`: the B `id` is not unique per delivery and A has none. */
export function eventKey(event: PixEvent): string {
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return [event.name, resource.id, resource.status].join(':');
}
