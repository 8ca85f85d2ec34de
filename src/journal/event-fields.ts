import { channelOf } from '../events/book-channel.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { JournalEntry } from './delivery-journal.js';

/** The entry fields an event gives: channel, resource id, amount, the gateway's delivery id, warnings. */
export function eventFields(event: PixEvent | UnknownEvent, fields: Partial<JournalEntry> = {}): Partial<JournalEntry> {
  if (event.deliveryId !== undefined) fields.deliveryId = event.deliveryId;
  if (event.kind === 'unknown') return fields;
  fields.channel = channelOf(event);
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  fields.resourceId = resource.id;
  fields.amountInCents = resource.amountInCents;
  if (event.warnings.length > 0) fields.warnings = event.warnings.map((w) => `${w.path}: ${w.message ?? `found ${w.found}`}`);
  return fields;
}
