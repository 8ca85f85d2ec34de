import { afterEach, describe, expect, it } from 'vitest';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { createProcessing, memoryDedupeStore, PixhookConfigError, type PixEvent } from '../../src/index.js';
import { createReconciler, memoryCursorStore, memoryWatchStore } from '../../src/reconcile/index.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';
import { startWebhookSide } from './webhook-side.js';

let emulator: ApiPixEmulator | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await emulator?.close();
  emulator = undefined;
});

describe('createReconciler({ apiPix: client, processing })', () => {
  it('recovers a Pix the webhook missed (source reconcile) and answers duplicate for one it handled', async () => {
    emulator = await startApiPix({ groupWindowMs: 10 });
    const handled: PixEvent[] = [];
    const processing = createProcessing({ store: memoryDedupeStore() }).on('pix_received', (event) => void handled.push(event));
    // Every answer processing gave the reconciler, by endToEndId.
    const answers = new Map<string, string | undefined>();
    const watched = {
      accept: async (event: PixEvent) => {
        const answer = await processing.accept(event);
        if (event.name === 'pix_received') answers.set(event.pix.endToEndId, answer.reason);
        return answer;
      },
    };
    const webhook = await startWebhookSide(emulator, processing);
    cleanups.push(webhook.close);
    const client = clientFor(emulator);
    cleanups.push(() => client.close());
    await client.configureWebhook(webhook.url);
    const from = Date.now() - 1000;

    await client.createCharge({ txid: txid(1), amountInCents: 1500 });
    const delivered = emulator.pay(txid(1))['endToEndId'] as string;
    await emulator.idle();
    emulator.injectDeliveryFault({ action: 'drop' });
    await client.createCharge({ txid: txid(2), amountInCents: 2500 });
    const missed = emulator.pay(txid(2))['endToEndId'] as string;
    await emulator.idle();
    expect(handled.map((event) => event.name === 'pix_received' && event.pix.endToEndId)).toEqual([delivered]);

    const cursorStore = memoryCursorStore();
    const reconciler = createReconciler({ apiPix: client, processing: watched, cursorStore, from, settleMs: 0 });
    const result = await reconciler.runOnce();
    expect(result).toMatchObject({ listed: 2, recovered: 1, duplicates: 1, failed: 0 });
    expect(answers.get(delivered)).toBe('duplicate');
    expect(answers.get(missed)).toBeUndefined();
    expect(handled).toHaveLength(2);
    expect(handled[1]).toMatchObject({ name: 'pix_received', source: 'reconcile', pix: { endToEndId: missed, amountInCents: 2500 } });
    expect(await cursorStore.get('api-pix')).toBeGreaterThan(from);
    // The listing reconciler's own surface: lag in its metrics.
    expect(await reconciler.metrics()).toMatchObject({ runs: 1, recovered: 1 });
  });

  it('refuses conflicting options at construction, naming the option', () => {
    const processing = createProcessing();
    const apiPix = { listPix: async function* () {} };
    const gateway = { getTransaction: async () => ({}) };
    const refusal = (options: unknown) => {
      try {
        createReconciler(options as never);
      } catch (error) {
        expect(error).toBeInstanceOf(PixhookConfigError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ apiPix, client: gateway, processing })).toMatch(/^pixhook: `apiPix` and `client` were both given/);
    expect(refusal({ apiPix, processing, watchStore: memoryWatchStore() })).toMatch(/^pixhook: `watchStore` is an option of the gateway/);
    expect(refusal({ apiPix, processing, minAgeMs: 0 })).toMatch(/^pixhook: `minAgeMs` is an option of the gateway/);
    expect(refusal({ client: gateway, processing, cursorStore: memoryCursorStore() })).toMatch(
      /^pixhook: `cursorStore` is an option of the API Pix listing reconciler/,
    );
    expect(refusal({ apiPix: gateway, processing })).toMatch(/^pixhook: `apiPix.listPix` must be a function/);
    expect(refusal({ apiPix, processing: {} })).toMatch(/^pixhook: `processing.accept`/);
    // Neither side's options conflict: both are built.
    expect(refusal({ apiPix, processing, overlapMs: 0 })).toBe('accepted');
    expect(refusal({ client: gateway, processing, minAgeMs: 0 })).toBe('accepted');
  });
});
