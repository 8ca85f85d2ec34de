import { describe, expectTypeOf, it } from 'vitest';
import { createPspReceiver, type Provider, type PspTransactionEvent } from '../../src/psp/index.js';
import { createReceiver, memoryPaymentBook, type PixEvent, type Receiver, type UnknownEvent } from '../../src/index.js';
import type { PixReceivedEvent } from '../../src/api-pix/index.js';

describe('pixhook/psp types (issue 38)', () => {
  it('createPspReceiver takes one PSP’s options and returns a Receiver', () => {
    expectTypeOf(createPspReceiver({ psp: 'mercado-pago', secret: 's', accessToken: 't' })).toEqualTypeOf<Receiver>();
    createPspReceiver({ psp: 'asaas', token: 't', apiKey: 'k', apiBaseUrl: 'https://api-sandbox.asaas.com', book: memoryPaymentBook() });
    createPspReceiver({ psp: 'pagbank', token: 't', mode: 'background' });
    createPspReceiver({ psp: 'woovi', publicKeys: ['-----BEGIN PUBLIC KEY-----…'] });
    createPspReceiver({ psp: 'pagarme', secretKey: 'sk', urlSecret: { secret: 's', param: 'k' } });
    // @ts-expect-error Mercado Pago needs the access token to fetch the payment
    createPspReceiver({ psp: 'mercado-pago', secret: 's' });
    // @ts-expect-error Pagar.me documents no signature: the URL secret is required
    createPspReceiver({ psp: 'pagarme', secretKey: 'sk' });
    // @ts-expect-error an unknown PSP
    createPspReceiver({ psp: 'stripe', secret: 's' });
  });

  it('every event names its provider', () => {
    expectTypeOf<PixEvent['provider']>().toEqualTypeOf<Provider>();
    expectTypeOf<UnknownEvent['provider']>().toEqualTypeOf<Provider>();
    expectTypeOf<PixReceivedEvent['provider']>().toEqualTypeOf<Provider>();
    expectTypeOf<Provider>().toEqualTypeOf<'gateway' | 'api-pix' | 'mercado-pago' | 'asaas' | 'pagbank' | 'woovi' | 'pagarme'>();
  });

  it('one transaction_paid handler serves the gateway and every PSP, with the same transaction fields', () => {
    const handler = (event: Extract<PixEvent, { name: 'transaction_paid' }>) => {
      expectTypeOf(event.transaction.amountInCents).toEqualTypeOf<number>();
      expectTypeOf(event.transaction.endToEndId).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.provider).toEqualTypeOf<Provider>();
      expectTypeOf(event.variant).toEqualTypeOf<'a' | 'b' | 'short' | 'psp'>();
    };
    createPspReceiver({ psp: 'pagbank', token: 't' }).on('transaction_paid', handler);
    createReceiver({ secret: 's' }).on('transaction_paid', handler);
    expectTypeOf<PspTransactionEvent<'transaction_paid'>>().toMatchTypeOf<PixEvent>();
  });
});
