import { describe, expectTypeOf, it } from 'vitest';
import {
  createApiPixReceiver,
  pixReceivedEvent,
  type PixRefundStatus,
  type PixReceivedEvent,
  type ReceivedPix,
  type RecurrenceUpdate,
} from '../../src/api-pix/index.js';
import type { PixEvent, Receiver } from '../../src/index.js';
import { createAppRouteHandler, type AppRouteHandlerOptions } from '../../adapters/next/index.js';

describe('pixhook/api-pix types (issue 29)', () => {
  it('createApiPixReceiver returns a Receiver; auth is one of three modes', () => {
    expectTypeOf(createApiPixReceiver({ auth: { mtls: { ca: 'pem' } } })).toEqualTypeOf<Receiver>();
    createApiPixReceiver({ auth: { proxy: { from: ['10.0.0.1'], secret: 's', fingerprints: ['ab'] } }, keys: ['k'] });
    createApiPixReceiver({ auth: { urlSecret: { secret: 's', param: 'hmac', allowFrom: ['1.2.3.4'] } }, mode: 'background' });
    // @ts-expect-error auth is required
    createApiPixReceiver({});
    // @ts-expect-error a proxy needs its addresses
    createApiPixReceiver({ auth: { proxy: {} } });
  });

  it('on(name) narrows to the standard events at compile time', () => {
    const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: 's' } } });
    receiver.on('pix_received', (event) => {
      expectTypeOf(event.pix).toEqualTypeOf<ReceivedPix>();
      expectTypeOf(event.pix.amountInCents).toEqualTypeOf<number>();
      expectTypeOf(event.pix.txid).toEqualTypeOf<string | undefined>();
      // Set only to false (another key, held as unknown_key): a handler sees it on a release.
      expectTypeOf(event.keyKnown).toEqualTypeOf<false | undefined>();
    });
    receiver.on('pix_refund_updated', (event) => {
      expectTypeOf(event.keyKnown).toEqualTypeOf<false | undefined>();
      expectTypeOf(event.refund.status).toEqualTypeOf<PixRefundStatus>();
      expectTypeOf(event.refund.endToEndId).toEqualTypeOf<string>();
    });
    receiver.on('recurrence_updated', (event) => void expectTypeOf(event.recurrence).toEqualTypeOf<RecurrenceUpdate>());
    receiver.on('recurring_charge_updated', (event) => void expectTypeOf(event.recurringCharge.txid).toEqualTypeOf<string>());
    // @ts-expect-error a pix_received carries no transfer
    receiver.on('pix_received', (event) => void event.transfer);
  });

  it('the events are members of the one union, and the pure builder returns one', () => {
    expectTypeOf<PixReceivedEvent>().toMatchTypeOf<PixEvent>();
    const read = pixReceivedEvent({ endToEndId: 'E1', valor: '1.00', horario: '2026-01-01T00:00:00Z' });
    if (read.ok) expectTypeOf(read.event).toEqualTypeOf<PixReceivedEvent>();
    else expectTypeOf(read.path).toEqualTypeOf<string>();
  });
});

describe('the App Router and an API Pix receiver that checks addresses', () => {
  it('clientAddress takes the Web Request and returns an address or undefined', () => {
    expectTypeOf<NonNullable<AppRouteHandlerOptions['clientAddress']>>().toEqualTypeOf<(request: Request) => string | undefined>();
    const receiver = createApiPixReceiver({ auth: { proxy: { from: ['10.0.0.0/8'], secret: 's' } } });
    const headers = (request: Request) => request.headers;
    // @ts-expect-error the address is a string, not the request's headers
    createAppRouteHandler(receiver, { clientAddress: headers });
  });
});
