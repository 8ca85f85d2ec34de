import { createServer } from 'node:http';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type DeliveryRecord, type Emulator } from '../../src/emulator/index.js';
import { createProcessing, createReceiver, type Processing } from '../../src/index.js';
import { createReconciler, type RunResult } from '../../src/reconcile/index.js';
import { redisWatchStore } from '../../src/redis/index.js';
import { redisDedupeStore } from '../../src/redis/index.js';
import { freePort } from '../helpers/free-port.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { customer } from '../helpers/customer.js';

// The reconcile end to end on a real 3-master Redis Cluster, with every store's default prefix: the
// receiver is down through the gateway's whole retry window, two reconcilers on one schedule recover
// each payment, and each is handled exactly once. (The single-server run is in reconcile-e2e.test.ts.)

const secret = 'whsec_e2e_reconcile_cluster';
const charges = 12;

let cluster: RedisCluster;
let emulator: Emulator;
const clients: Cluster[] = [];
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [cluster, emulator] = await Promise.all([
    startRedisCluster(),
    startEmulator({ webhookSecret: secret, retry: { backoff: { delayMs: 20 } }, deliveryTimeoutMs: 2_000 }),
  ]);
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const client of clients) client.disconnect();
  await Promise.all([emulator?.close(), cluster?.dispose()]);
});

/** One ioredis Cluster client per "process", as each instance would have. */
function connect(): Cluster {
  const client = new Cluster([...cluster.nodes]);
  clients.push(client);
  return client;
}

async function control(path: string, method = 'GET'): Promise<{ data: unknown }> {
  const response = await fetch(`${emulator.url}${path}`, { method });
  expect(response.ok).toBe(true);
  return (await response.json()) as { data: unknown };
}

interface Handled {
  id: string;
  amountInCents: number;
  source: string;
}

function processingOn(client: Cluster, handled: Handled[]): Processing {
  return createProcessing({ store: redisDedupeStore({ client }) }).on('transaction_paid', (event, context) => {
    handled.push({ id: event.transaction.id, amountInCents: event.transaction.amountInCents, source: context.source });
  });
}

describe('reconcile end to end on a Redis Cluster', () => {
  it('two reconcilers on one Cluster schedule (default prefixes): every paid charge handled exactly once, none read twice', async () => {
    const port = await freePort();
    const webhookUrl = `http://127.0.0.1:${port}/webhooks/pix`;
    const watchStore = redisWatchStore({ client: connect() });
    const pix = createClient({ ...emulator.credentials, baseUrl: emulator.url, watch: watchStore });
    await pix.webhooks.register({ url: webhookUrl, events: ['transaction_paid'] });

    const amounts = new Map<string, number>();
    for (let i = 0; i < charges; i++) {
      const charge = await pix.createCharge({ amountInCents: 100 + i * 137, customer, metadata: { order: i } });
      amounts.set(charge.id, 100 + i * 137);
    }
    // Every createCharge was followed: the watch store took each one (it failed on CROSSSLOT with the old prefix).
    expect((await watchStore.stats()).watched).toBe(charges);
    for (const id of amounts.keys()) await control(`/_emulator/transactions/${id}/pay`, 'POST');
    await emulator.idle();
    const gaveUp = (await control(`/_emulator/deliveries?state=gave_up&url=${encodeURIComponent(webhookUrl)}`)).data as DeliveryRecord[];
    expect(gaveUp).toHaveLength(charges);

    const handled: Handled[] = [];
    const receiver = createReceiver({ secret, processing: processingOn(connect(), handled) });
    const server = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise((resolve) => server.close(resolve)));

    const reader = createClient({ ...emulator.credentials, baseUrl: emulator.url });
    const reconcilers = [0, 1].map(() =>
      createReconciler({
        client: reader,
        processing: processingOn(connect(), handled),
        watchStore: redisWatchStore({ client: connect() }),
        minAgeMs: 0,
        retry: { backoff: [60_000] },
        batch: 5,
      }),
    );
    const totals: RunResult = { checked: 0, recovered: 0, finished: 0, deferred: 0, failed: 0, held: 0 };
    const checkedBy = [0, 0];
    for (let pass = 0; pass < 5 && (await reconcilers[0]!.metrics()).watched > 0; pass++) {
      const results = await Promise.all(reconcilers.map((r) => r.runOnce()));
      results.forEach((result, i) => {
        checkedBy[i]! += result.checked;
        for (const field of Object.keys(totals) as Array<keyof RunResult>) totals[field] += result[field];
      });
    }
    const apiReads = emulator.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/transactions/')).length;

    expect(handled).toHaveLength(charges);
    for (const h of handled) expect(h).toEqual({ id: h.id, amountInCents: amounts.get(h.id), source: 'reconcile' });
    expect(new Set(handled.map((h) => h.id)).size).toBe(charges);
    expect(totals).toMatchObject({ checked: charges, recovered: charges, finished: charges, failed: 0 });
    expect(checkedBy.every((n) => n > 0)).toBe(true);
    expect(apiReads).toBe(charges);

    // The gateway's resend after the receiver is back: 200 duplicate, nothing handled again.
    for (const delivery of gaveUp) await control(`/_emulator/deliveries/${delivery.id}/redeliver`, 'POST');
    await emulator.idle();
    const resent = emulator.deliveries().filter((d) => d.redeliveryOf !== undefined);
    expect(resent).toHaveLength(charges);
    for (const delivery of resent) expect(JSON.parse(delivery.attempts[0]?.responseBody ?? '{}')).toMatchObject({ reason: 'duplicate' });
    expect(handled).toHaveLength(charges);
    console.info(`reconcile e2e (cluster): reads per instance ${checkedBy.join(' + ')}, API reads ${apiReads}`);
  }, 60_000);
});
