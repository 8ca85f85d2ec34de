import type { EventSource, JsonObject, PixEvent, Provider } from '../events/event-types.js';
import { readCall } from './api-pix/read-batch.js';
import { asaasEvent, confirmedAsaasEvent, readAsaasBody } from './asaas/read.js';
import { rereadGateway } from './gateway/read.js';
import { paymentEvent } from './mercado-pago/read.js';
import { pagarmeChargeEvent } from './pagarme/read.js';
import { readOrder } from './pagbank/read.js';
import { readWoovi } from './woovi/read.js';

/** What replay, the durable worker and the reconcilers need of a source without its credentials: its readers. */
export interface SourceReader {
  /**
   * True for a source whose delivery is one event and one journal entry per event (the gateway); false for a
   * delivery of items journaled as one call (API Pix, the PSPs), replayed item by item.
   */
  readonly single: boolean;
  /**
   * A kept body's events again, every one it holds (a PagBank order's every charge), no network: an id-only body
   * has none; undefined when it is not this source's shape. (No one-event `reread`: a PagBank event's payload is its
   * whole order, so one event cannot be told from its payload; the durable worker reads the queued facts instead.)
   */
  readBody(value: unknown, source: EventSource): PixEvent[] | undefined;
  /**
   * Present on a source whose body is only a hint (its API decides): one record its API answered, as journaled
   * (`JournalEntry.confirmed`), read again as the event the handlers saw; `body` is the delivery's hint body.
   */
  confirmed?(record: JsonObject, body: unknown, deliveryId: string | undefined, source: EventSource): PixEvent | undefined;
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A PSP's body is its event's payload (an Asaas event, a PagBank order, a Woovi charge); an id-only hint rereads as none. */
function payloadReader(reread: (payload: JsonObject, source: EventSource) => PixEvent | undefined): SourceReader {
  return {
    single: false,
    readBody: (value, source) => {
      const event = isObject(value) ? reread(value, source) : undefined;
      return event === undefined ? undefined : [event];
    },
  };
}

/** Every source's readers by its provider (`event.provider`, a journal entry's `profile`). A new source is one line here. */
export const sourceReaders: { readonly [P in Provider]: SourceReader } = {
  gateway: {
    single: true,
    readBody: (value, source) => (isObject(value) ? [rereadGateway(value, source)].filter((e) => e !== undefined) : undefined),
  },
  'api-pix': { single: false, readBody: readCall },
  'mercado-pago': {
    ...payloadReader((payload, source) => paymentEvent(payload, source)),
    confirmed: (record, _body, _deliveryId, source) => paymentEvent(record, source),
  },
  asaas: {
    ...payloadReader((payload, source) => readAsaasBody(payload, source) ?? asaasEvent(payload, payload, {}, source)),
    // With `apiKey`: the fetched payment decides and keys the event (`asaasKey`); it keeps the webhook's id and date.
    confirmed: confirmedAsaasEvent,
  },
  pagbank: {
    single: false,
    // An order is one event per charge: a replay runs every charge the call handed over, not only the first.
    readBody: (value, source) => {
      const events = isObject(value) ? readOrder(value, source).events : [];
      return events.length === 0 ? undefined : events;
    },
  },
  woovi: payloadReader((payload, source) => readWoovi(payload, source).events[0]),
  pagarme: {
    ...payloadReader((payload, source) => pagarmeChargeEvent(payload, undefined, source)),
    confirmed: (record, _body, deliveryId, source) => pagarmeChargeEvent(record, deliveryId, source),
  },
};

/**
 * The reader a journaled delivery needs: its `profile` (the source that read it). Entries written before
 * `profile` was set are the gateway's, or API Pix's when they hold `items`.
 */
export function readerOf(entry: { readonly profile?: Provider | undefined; readonly items?: unknown }): SourceReader {
  const profile = entry.profile ?? (entry.items !== undefined ? 'api-pix' : 'gateway');
  return sourceReaders[profile] ?? sourceReaders.gateway;
}
