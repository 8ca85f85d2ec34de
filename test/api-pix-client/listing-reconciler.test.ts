import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiPixClient } from '../../src/api-pix/index.js';
import { readBudget } from '../../src/client/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { createProcessing, memoryDedupeStore, type DedupeStore, type PixEvent } from '../../src/index.js';
import { postgresCursorStore } from '../../src/postgres/index.js';
import { createListingReconciler, createReconciler, memoryCursorStore, type CursorStore } from '../../src/reconcile/index.js';
import { redisCursorStore, redisDedupeStore } from '../../src/redis/index.js';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';
import { startWebhookSide } from './webhook-side.js';

let redisServer: RedisServer;
let postgres: PostgresServer;
const redisClients: Redis[] = [];
const pools: pg.Pool[] = [];
beforeAll(async () => {
  [redisServer, postgres] = await Promise.all([startRedisServer(), startPostgresServer()]);
}, 60_000);
afterAll(async () => {
  for (const client of redisClients) client.disconnect();
  for (const pool of pools) await pool.end().catch(() => {});
  await redisServer?.dispose();
  await postgres?.dispose();
});

let emulator: ApiPixEmulator | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await emulator?.close();
  emulator = undefined;
});

/** One "process": a processing with the handler, counting each endToEndId it handled. */
function processingWith(store: DedupeStore, handled: Map<string, number>) {
  return createProcessing({ store }).on('pix_received', (event) => {
    handled.set(event.pix.endToEndId, (handled.get(event.pix.endToEndId) ?? 0) + 1);
  });
}

async function pay100(emulator: ApiPixEmulator, client: ApiPixClient, offset = 0, count = 100): Promise<string[]> {
  const ids: string[] = [];
  for (let i = offset; i < offset + count; i++) {
    await client.createCharge({ txid: txid(i), amountInCents: 1000 + i });
    ids.push(emulator.pay(txid(i))['endToEndId'] as string);
  }
  await emulator.idle();
  return ids;
}

function newRedis(): Redis {
  const client = new Redis(redisServer.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  redisClients.push(client);
  return client;
}

describe('the listing reconciler recovers what the webhook missed', () => {
  it('webhook dropped for 100 Pix after 20 were delivered: 120/120 handled, each once', async () => {
    emulator = await startApiPix({ groupWindowMs: 10 });
    const handled = new Map<string, number>();
    const processing = processingWith(memoryDedupeStore(), handled);
    const webhook = await startWebhookSide(emulator, processing);
    cleanups.push(webhook.close);
    const client = clientFor(emulator);
    cleanups.push(() => client.close());
    await client.configureWebhook(webhook.url);
    const from = Date.now() - 1000;
    const delivered = await pay100(emulator, client, 0, 20);
    emulator.injectDeliveryFault({ action: 'drop' });
    const missed = await pay100(emulator, client, 20, 100);
    expect(
      emulator
        .deliveries()
        .filter((d) => d.state !== 'delivered')
        .flatMap((d) => d.endToEndIds),
    ).toEqual(missed);
    expect(handled.size).toBe(20);

    const recovered: PixEvent[] = [];
    const reconciler = createListingReconciler({
      client,
      processing,
      from,
      settleMs: 0,
      onRecovered: (event) => void recovered.push(event),
    });
    const result = await reconciler.runOnce();
    expect(result).toMatchObject({ listed: 120, recovered: 100, duplicates: 20, failed: 0 });
    expect(recovered.every((event) => event.source === 'reconcile')).toBe(true);
    expect([...handled.keys()].sort()).toEqual([...delivered, ...missed].sort());
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    // A second run lists the overlap again: all duplicates.
    const again = await reconciler.runOnce();
    expect(again.recovered).toBe(0);
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    const metrics = await reconciler.metrics();
    expect(metrics.cursor).toBeGreaterThan(from);
    expect(metrics).toMatchObject({ runs: 2, recovered: 100 });
  });

  it('webhook disabled by the PSP after N failures: later Pix are never sent, and the reconciler finds them', async () => {
    emulator = await startApiPix({ groupWindowMs: 10, disableWebhookAfterFailures: 3 });
    const handled = new Map<string, number>();
    const processing = processingWith(memoryDedupeStore(), handled);
    const webhook = await startWebhookSide(emulator, processing);
    cleanups.push(webhook.close);
    const client = clientFor(emulator);
    cleanups.push(() => client.close());
    await client.configureWebhook(webhook.url);
    const from = Date.now() - 1000;
    emulator.injectDeliveryFault({ action: 'fail', status: 503, times: 3 });
    const ids = await pay100(emulator, client);
    expect(emulator.deliveries().some((d) => d.state === 'disabled')).toBe(true);
    expect(handled.size).toBe(0);
    const result = await createListingReconciler({ client, processing, from, settleMs: 0 }).runOnce();
    expect(result.recovered).toBe(100);
    expect([...handled.keys()].sort()).toEqual([...ids].sort());
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
  });

  // Each case opens a new store on the same place (key prefix, table) with its own connection, as a restarted process does.
  const restartCases: Array<[string, (place: string) => Promise<CursorStore>]> = [
    ['Redis', async (place) => redisCursorStore({ client: newRedis(), prefix: `${place}:{reconcile}:` })],
    [
      'Postgres',
      async (place) => {
        const pool = new pg.Pool({ connectionString: postgres.url });
        pool.on('error', () => {});
        pools.push(pool);
        const store = postgresCursorStore({ db: pool, prefix: place });
        await store.migrate();
        return store;
      },
    ],
  ];
  for (const [where, cursorStoreFor] of restartCases) {
    it(`a run cut short by the read budget, then a restart, with the cursor on ${where}: 100/100 handled once`, async () => {
      emulator = await startApiPix({ groupWindowMs: 10 });
      const handled = new Map<string, number>();
      const dedupePrefix = `d${Date.now()}:{dedupe}:`;
      const setupClient = clientFor(emulator);
      cleanups.push(() => setupClient.close());
      const from = Date.now() - 1000;
      emulator.injectDeliveryFault({ action: 'drop' });
      const ids = await pay100(emulator, setupClient);

      // First process: 3 pages of 20 are all its budget allows.
      const place = `t${Date.now()}`;
      const store1 = await cursorStoreFor(place);
      const client1 = clientFor(emulator, { readBudget: readBudget({ perMinute: 3 }) });
      cleanups.push(() => client1.close());
      const first = createListingReconciler({
        client: client1,
        processing: processingWith(redisDedupeStore({ client: newRedis(), prefix: dedupePrefix }), handled),
        cursorStore: store1,
        from,
        settleMs: 0,
        pageSize: 20,
      });
      const cut = await first.runOnce();
      expect(cut).toMatchObject({ recovered: 60, failed: 0 });
      expect(cut.stoppedBy).toMatchObject({ apiCode: 'READ_BUDGET_SPENT' });
      const saved = await store1.get('api-pix');
      expect(saved).toBeGreaterThan(from);

      // "Restart": new connections, a new processing and reconciler; the cursor is read back from the store.
      const store2 = await cursorStoreFor(place);
      expect(await store2.get('api-pix')).toBe(saved);
      const client2 = clientFor(emulator);
      cleanups.push(() => client2.close());
      const second = createListingReconciler({
        client: client2,
        processing: processingWith(redisDedupeStore({ client: newRedis(), prefix: dedupePrefix }), handled),
        cursorStore: store2,
        from,
        settleMs: 0,
        pageSize: 20,
      });
      const rest = await second.runOnce();
      expect(rest.stoppedBy).toBeUndefined();
      expect(rest.recovered).toBe(40);
      expect([...handled.keys()].sort()).toEqual([...ids].sort());
      expect([...handled.values()].every((n) => n === 1)).toBe(true);
    });
  }

  for (const [where, cursorStoreFor] of restartCases) {
    it(`webhook disabled by the PSP after 3 failures, a run cut short, then a restart, with the cursor on ${where}: 100/100 handled once`, async () => {
      emulator = await startApiPix({ groupWindowMs: 10, disableWebhookAfterFailures: 3 });
      const handled = new Map<string, number>();
      const dedupePrefix = `x${Date.now()}:{dedupe}:`;
      const dedupe = () => redisDedupeStore({ client: newRedis(), prefix: dedupePrefix });
      const webhook = await startWebhookSide(emulator, processingWith(dedupe(), handled));
      cleanups.push(webhook.close);
      const setupClient = clientFor(emulator);
      cleanups.push(() => setupClient.close());
      await setupClient.configureWebhook(webhook.url);
      const from = Date.now() - 1000;
      emulator.injectDeliveryFault({ action: 'fail', status: 503, times: 3 });
      const ids = await pay100(emulator, setupClient);
      expect(emulator.deliveries().filter((d) => d.state === 'disabled').length).toBeGreaterThan(0);
      expect(emulator.deliveries().some((d) => d.state === 'delivered')).toBe(false);
      expect(handled.size).toBe(0);

      // First process, through createReconciler({ apiPix }): 3 pages of 20 are all its budget allows.
      const place = `dis${Date.now()}`;
      const client1 = clientFor(emulator, { readBudget: readBudget({ perMinute: 3 }) });
      cleanups.push(() => client1.close());
      // No overlap: the second process lists from the saved cursor on, not the first process's Pix again.
      const options = { from, settleMs: 0, pageSize: 20, overlapMs: 0 };
      const store1 = await cursorStoreFor(place);
      const cut = await createReconciler({
        apiPix: client1,
        processing: processingWith(dedupe(), handled),
        cursorStore: store1,
        ...options,
      }).runOnce();
      expect(cut).toMatchObject({ recovered: 60, failed: 0 });
      expect(cut.stoppedBy).toMatchObject({ apiCode: 'READ_BUDGET_SPENT' });
      const saved = await store1.get('api-pix');
      expect(saved).toBeGreaterThan(from);

      // "Restart": new connections, processing and reconciler; the cursor is read back from the store.
      const client2 = clientFor(emulator);
      cleanups.push(() => client2.close());
      const store2 = await cursorStoreFor(place);
      expect(await store2.get('api-pix')).toBe(saved);
      const rest = await createReconciler({
        apiPix: client2,
        processing: processingWith(dedupe(), handled),
        cursorStore: store2,
        ...options,
      }).runOnce();
      expect(rest.stoppedBy).toBeUndefined();
      expect(rest.recovered).toBe(40);
      expect(rest.listed).toBeLessThan(100);
      expect([...handled.keys()].sort()).toEqual([...ids].sort());
      expect([...handled.values()].every((n) => n === 1)).toBe(true);
    });
  }

  it('the cursor never moves past a Pix processing did not handle', async () => {
    emulator = await startApiPix({ groupWindowMs: 10 });
    const client = clientFor(emulator);
    cleanups.push(() => client.close());
    emulator.injectDeliveryFault({ action: 'drop' });
    const from = Date.now() - 1000;
    const ids = await pay100(emulator, client, 0, 5);
    let failOnce = ids[2];
    const handled: string[] = [];
    const processing = createProcessing({ store: memoryDedupeStore() }).on('pix_received', (event) => {
      if (event.pix.endToEndId === failOnce) {
        failOnce = undefined;
        throw new Error('handler down');
      }
      handled.push(event.pix.endToEndId);
    });
    const store = memoryCursorStore();
    const reconciler = createListingReconciler({ client, processing, cursorStore: store, from, settleMs: 0, overlapMs: 0 });
    const first = await reconciler.runOnce();
    expect(first).toMatchObject({ recovered: 4, failed: 1 });
    const paidAt = Date.parse(emulator.pix()[2]!['horario'] as string);
    expect(await store.get('api-pix')).toBe(paidAt);
    const second = await reconciler.runOnce();
    expect(second.recovered).toBe(1);
    expect([...handled].sort()).toEqual([...ids].sort());
  });
});
