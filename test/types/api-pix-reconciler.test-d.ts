import { describe, expectTypeOf, it } from 'vitest';
import type { ApiPixClient } from '../../src/api-pix/index.js';
import type { PixClient } from '../../src/client/index.js';
import { createProcessing, type PixEvent } from '../../src/index.js';
import {
  createReconciler,
  memoryCursorStore,
  memoryWatchStore,
  type ApiPixReconcilerOptions,
  type ListingReconciler,
  type Reconciler,
} from '../../src/reconcile/index.js';

declare const apiPix: ApiPixClient;
declare const gateway: PixClient;
const processing = createProcessing();

describe('createReconciler: the gateway options or the API Pix options, each checked', () => {
  it('with apiPix it is the listing reconciler; with client, the gateway one', () => {
    expectTypeOf(
      createReconciler({ apiPix, processing, cursorStore: memoryCursorStore(), overlapMs: 0 }),
    ).toEqualTypeOf<ListingReconciler>();
    expectTypeOf(createReconciler({ client: gateway, processing, watchStore: memoryWatchStore() })).toEqualTypeOf<Reconciler>();
    const options: ApiPixReconcilerOptions = { apiPix, processing, from: new Date() };
    expectTypeOf(createReconciler(options)).toEqualTypeOf<ListingReconciler>();
  });

  it('refuses the other side’s options, and both clients at once', () => {
    // @ts-expect-error watchStore is the gateway reconciler's; the listing one keeps a cursor
    createReconciler({ apiPix, processing, watchStore: memoryWatchStore() });
    // @ts-expect-error cursorStore is the listing reconciler's
    createReconciler({ client: gateway, processing, cursorStore: memoryCursorStore() });
    // @ts-expect-error one client: apiPix or client
    createReconciler({ apiPix, client: gateway, processing });
    // @ts-expect-error a gateway client has no listPix
    createReconciler({ apiPix: gateway, processing });
    // @ts-expect-error processing is required
    createReconciler({ apiPix });
  });

  it('onRecovered is typed per side: the listing one gets the event only', () => {
    expectTypeOf<Parameters<NonNullable<ApiPixReconcilerOptions['onRecovered']>>>().toEqualTypeOf<[PixEvent]>();
  });
});
