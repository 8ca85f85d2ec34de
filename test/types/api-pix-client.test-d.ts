import type { Redis } from 'ioredis';
import type pg from 'pg';
import { describe, expectTypeOf, it } from 'vitest';
import {
  ApiPixNotFoundError,
  createApiPixClient,
  type ApiPixCharge,
  type ApiPixClient,
  type ApiPixProblem,
  type ApiPixReceived,
  type ApiPixRefund,
} from '../../src/api-pix/index.js';
import { PixNotFoundError } from '../../src/client/index.js';
import { startEmulator, type ApiPixEmulator, type Emulator } from '../../src/emulator/index.js';
import { createProcessing } from '../../src/index.js';
import { postgresCursorStore } from '../../src/postgres/index.js';
import { createListingReconciler, memoryCursorStore, type CursorStore, type ListingRunResult } from '../../src/reconcile/index.js';
import { redisCursorStore } from '../../src/redis/index.js';

declare const redis: Redis;
declare const pool: pg.Pool;
declare const client: ApiPixClient;

describe('pixhook/api-pix client types', () => {
  it('createApiPixClient takes the documented options and returns an ApiPixClient', () => {
    const made = createApiPixClient({ baseUrl: 'https://psp.example', clientId: 'a', clientSecret: 'b', cert: 'c.pem', key: 'k.pem' });
    expectTypeOf(made).toEqualTypeOf<ApiPixClient>();
    // @ts-expect-error the client secret is required
    createApiPixClient({ baseUrl: 'https://psp.example', clientId: 'a', cert: 'c.pem', key: 'k.pem' });
  });

  it('amounts are cents; results are typed', async () => {
    expectTypeOf(await client.createCharge({ amountInCents: 100 })).toMatchTypeOf<ApiPixCharge>();
    // @ts-expect-error amounts are integer cents, not decimal strings
    void client.createCharge({ amountInCents: '1.00' });
    // @ts-expect-error a payer has a cpf or a cnpj, and a name
    void client.createCharge({ amountInCents: 100, payer: { name: 'Ana' } });
    expectTypeOf(await client.getPix('E1')).toEqualTypeOf<ApiPixReceived>();
    expectTypeOf(await client.refund('E1', 'r1', 100)).toEqualTypeOf<ApiPixRefund>();
    expectTypeOf((await client.refund('E1', 'r1', 100)).status).toEqualTypeOf<'processing' | 'returned' | 'not_returned'>();
    expectTypeOf(client.listPix({ from: new Date(), to: Date.now() })).toMatchTypeOf<AsyncIterable<ApiPixReceived>>();
    await client.configureWebhook('https://shop.example/hook');
    await client.configureWebhook('key', 'https://shop.example/hook');
  });

  it('errors carry the Problema and extend the gateway client classes', () => {
    const error = new ApiPixNotFoundError(
      { status: 404, code: 'NaoEncontrado', message: 'x' },
      { type: 't', title: 't', status: 404, violacoes: [] },
    );
    expectTypeOf(error.problem).toEqualTypeOf<ApiPixProblem>();
    expectTypeOf(error).toMatchTypeOf<PixNotFoundError>();
  });

  it('startEmulator narrows by profile', async () => {
    expectTypeOf(await startEmulator({ profile: 'api-pix' })).toEqualTypeOf<ApiPixEmulator>();
    expectTypeOf(await startEmulator()).toEqualTypeOf<Emulator>();
    expectTypeOf((await startEmulator({ profile: 'api-pix' })).certificates.ca).toEqualTypeOf<string>();
  });

  it('the listing reconciler takes the client and any cursor store', async () => {
    const stores: CursorStore[] = [memoryCursorStore(), redisCursorStore({ client: redis }), postgresCursorStore({ db: pool })];
    const reconciler = createListingReconciler({ client, processing: createProcessing(), cursorStore: stores[0] });
    expectTypeOf(await reconciler.runOnce()).toEqualTypeOf<ListingRunResult>();
    expectTypeOf((await reconciler.metrics()).lagMs).toEqualTypeOf<number>();
    // @ts-expect-error the reconciler needs a processing
    createListingReconciler({ client });
  });
});
