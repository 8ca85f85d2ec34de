import { createServer, type Server } from 'node:http';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type DeliveryRecord, type Emulator } from '../../src/emulator/index.js';
import { createProcessing, createReceiver, memoryDedupeStore, type DedupeStore, type Processing } from '../../src/index.js';
import {
  createReconciler,
  memoryWatchStore,
  type ReconcileFailure,
  type Reconciler,
  type RunResult,
  type WatchStore,
} from '../../src/reconcile/index.js';
import { redisDedupeStore, redisWatchStore } from '../../src/redis/index.js';
import { freePort } from '../helpers/free-port.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { customer } from '../helpers/customer.js';

// The point of the reconciler, end to end over real HTTP: the receiver is down through the gateway's
// whole retry window, the gateway gives up on every payment, and still each one is handled exactly once.

const secret = 'whsec_e2e_reconcile';
const charges = 20;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Handled {
  id: string;
  amountInCents: number;
  source: string;
}

/** Processing with one `transaction_paid` handler that records what it handled (one per process in the Redis run). */
function processingOn(store: DedupeStore, handled: Handled[]): Processing {
  return createProcessing({ store }).on('transaction_paid', (event, context) => {
    handled.push({ id: event.transaction.id, amountInCents: event.transaction.amountInCents, source: context.source });
  });
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
}

async function control(emulator: Emulator, method: string, path: string): Promise<{ data: unknown }> {
  const response = await fetch(`${emulator.url}${path}`, { method });
  expect(response.ok).toBe(true);
  return (await response.json()) as { data: unknown };
}

interface Backend {
  watchStore: WatchStore;
  /** A second watch store handle (another connection) for the second reconciler, when there is one. */
  secondWatchStore?: WatchStore;
  dedupe: () => DedupeStore;
}

async function runScenario(backend: Backend, instances: 1 | 2) {
  const emulator = await startEmulator({ webhookSecret: secret, retry: { backoff: { delayMs: 20 } }, deliveryTimeoutMs: 2_000 });
  cleanups.push(() => emulator.close());
  // The receiver's port, with nothing listening yet: every attempt is refused, as during an outage.
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/webhooks/pix`;
  const pix = createClient({ ...emulator.credentials, baseUrl: emulator.url, watch: backend.watchStore });
  await pix.webhooks.register({ url: webhookUrl, events: ['transaction_paid'] });

  const amounts = new Map<string, number>();
  for (let i = 0; i < charges; i++) {
    const amountInCents = 100 + i * 137;
    const charge = await pix.createCharge({ amountInCents, customer, metadata: { order: i } });
    amounts.set(charge.id, amountInCents);
  }
  for (const id of amounts.keys()) await control(emulator, 'POST', `/_emulator/transactions/${id}/pay`);
  await emulator.idle();

  // The gateway gave up on every payment: 5 refused attempts each, in the delivery log.
  const gaveUp = (await control(emulator, 'GET', `/_emulator/deliveries?state=gave_up&url=${encodeURIComponent(webhookUrl)}`))
    .data as DeliveryRecord[];
  expect(gaveUp).toHaveLength(charges);
  expect(new Set(gaveUp.map((d) => d.resourceId))).toEqual(new Set(amounts.keys()));
  for (const delivery of gaveUp) {
    expect(delivery.event).toBe('transaction_paid');
    expect(delivery.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(delivery.attempts.every((a) => a.status === undefined && /ECONNREFUSED/.test(a.error ?? ''))).toBe(true);
  }

  // The receiver comes back; the reconciler(s) start. Each process has its own processing on the shared dedupe store.
  const handled: Handled[] = [];
  const receiver = createReceiver({ secret, processing: processingOn(backend.dedupe(), handled) });
  await listen(createServer(createNodeHandler(receiver)), port);
  const reader = createClient({ ...emulator.credentials, baseUrl: emulator.url });
  const reconcilers: Reconciler[] = [];
  for (let i = 0; i < instances; i++) {
    reconcilers.push(
      createReconciler({
        client: reader,
        processing: processingOn(backend.dedupe(), handled),
        watchStore: i === 1 && backend.secondWatchStore ? backend.secondWatchStore : backend.watchStore,
        minAgeMs: 0,
        retry: { backoff: [60_000] },
        batch: 7,
      }),
    );
  }
  const totals: RunResult = { checked: 0, recovered: 0, finished: 0, deferred: 0, failed: 0, held: 0 };
  const checkedBy = reconcilers.map(() => 0);
  for (let pass = 0; pass < 5 && (await reconcilers[0]!.metrics()).watched > 0; pass++) {
    const results = await Promise.all(reconcilers.map((r) => r.runOnce()));
    results.forEach((result, i) => {
      checkedBy[i] = (checkedBy[i] as number) + result.checked;
      for (const field of Object.keys(totals) as Array<keyof RunResult>) totals[field] += result[field];
    });
  }
  const apiReads = emulator.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/transactions/')).length;

  // Every paid charge handled exactly once, with its amount in cents, by the reconciler.
  expect(handled).toHaveLength(charges);
  expect(new Set(handled.map((h) => h.id)).size).toBe(charges);
  for (const h of handled) expect(h).toEqual({ id: h.id, amountInCents: amounts.get(h.id), source: 'reconcile' });
  expect(totals).toEqual({ checked: charges, recovered: charges, finished: charges, deferred: 0, failed: 0, held: 0 });
  expect(apiReads).toBe(charges);
  expect(await reconcilers[0]!.metrics()).toMatchObject({ watched: 0, lagMs: 0 });

  // Deliveries after the receiver is back (the gateway's resend) are duplicates: 200, nothing handled again.
  for (const delivery of gaveUp) await control(emulator, 'POST', `/_emulator/deliveries/${delivery.id}/redeliver`);
  await emulator.idle();
  const resent = emulator.deliveries().filter((d) => d.redeliveryOf !== undefined);
  expect(resent).toHaveLength(charges);
  for (const delivery of resent) {
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ status: 200 });
    expect(JSON.parse(delivery.attempts[0]?.responseBody ?? '{}')).toMatchObject({ reason: 'duplicate' });
  }
  expect(handled).toHaveLength(charges);

  // And the other way round: a payment whose webhook arrived is never handled again by the reconciler.
  const late = await pix.createCharge({ amountInCents: 4242, customer });
  await control(emulator, 'POST', `/_emulator/transactions/${late.id}/pay`);
  await emulator.idle();
  expect(handled.at(-1)).toEqual({ id: late.id, amountInCents: 4242, source: 'webhook' });
  const after = await reconcilers[0]!.runOnce();
  expect(after).toMatchObject({ checked: 1, recovered: 0, finished: 1 });
  expect(handled).toHaveLength(charges + 1);
  return { totals, checkedBy, apiReads: apiReads + after.checked };
}

describe('reconcile end to end: the receiver is down for the whole retry window', () => {
  it('memory store, one reconciler: every paid charge handled exactly once', async () => {
    const dedupe = memoryDedupeStore();
    const { apiReads } = await runScenario({ watchStore: memoryWatchStore(), dedupe: () => dedupe }, 1);
    expect(apiReads).toBe(charges + 1);
  });

  it('Redis, two reconciler instances on one schedule: every paid charge handled exactly once, none read twice', async () => {
    const server = await startRedisServer();
    cleanups.push(() => server.dispose());
    const connections = [new Redis(server.url), new Redis(server.url), new Redis(server.url)];
    cleanups.push(async () => connections.forEach((c) => c.disconnect()));
    const [one, two, three] = connections as [Redis, Redis, Redis];
    let next = 0;
    const { totals, checkedBy, apiReads } = await runScenario(
      {
        watchStore: redisWatchStore({ client: one }),
        secondWatchStore: redisWatchStore({ client: two }),
        dedupe: () => redisDedupeStore({ client: [one, two, three][next++ % 3] as Redis }),
      },
      2,
    );
    expect(totals.checked).toBe(charges);
    // Both instances took part (batch 7 each per pass), and together read each charge once.
    expect(checkedBy.every((n) => n > 0)).toBe(true);
    expect(apiReads).toBe(charges + 1);
    console.info(`reconcile e2e (redis): reads per instance ${checkedBy.join(' + ')}, API reads ${apiReads}`);
  });
});

describe('reconcile end to end: Variant A expiry and an unreadable amount', () => {
  it('a Variant A expiry (transaction_updated, status canceled) is handled once when both the webhook and the reconciler report it', async () => {
    const emulator = await startEmulator({ webhookSecret: secret, retry: { backoff: { delayMs: 20 } }, deliveryTimeoutMs: 2_000 });
    cleanups.push(() => emulator.close());
    expect(emulator.variant).toBe('a');
    const port = await freePort();
    const webhookUrl = `http://127.0.0.1:${port}/webhooks/pix`;
    const dedupe = memoryDedupeStore();
    const handled: { name: string; id: string; status: string; source: string }[] = [];
    const recording = () =>
      createProcessing({ store: dedupe }).onAny((event, context) => {
        if (event.kind === 'transaction')
          handled.push({ name: event.name, id: event.transaction.id, status: event.transaction.status, source: context.source });
      });
    const reconciler = createReconciler({
      client: createClient({ ...emulator.credentials, baseUrl: emulator.url }),
      processing: recording(),
      minAgeMs: 0,
      retry: { backoff: [60_000] },
    });
    const pix = createClient({ ...emulator.credentials, baseUrl: emulator.url, watch: reconciler });
    await pix.webhooks.register({ url: webhookUrl, events: ['transaction_updated'] });

    // The first expiry's webhook finds nobody (the gateway gives up); the second's is handled.
    const first = await pix.createCharge({ amountInCents: 700, customer });
    await control(emulator, 'POST', `/_emulator/transactions/${first.id}/expire`);
    await emulator.idle();
    await listen(createServer(createNodeHandler(createReceiver({ secret, processing: recording() }))), port);
    const second = await pix.createCharge({ amountInCents: 800, customer });
    await control(emulator, 'POST', `/_emulator/transactions/${second.id}/expire`);
    await emulator.idle();
    expect(handled).toEqual([{ name: 'transaction_updated', id: second.id, status: 'canceled', source: 'webhook' }]);

    // The reconciler reads both: it recovers the first, and finds the second already handled.
    expect(await reconciler.runOnce()).toMatchObject({ checked: 2, recovered: 1, finished: 2, failed: 0 });
    // The gateway's resend of the first expiry is then a duplicate.
    const gaveUp = emulator.deliveries().filter((d) => d.resourceId === first.id && d.state === 'gave_up');
    expect(gaveUp).toHaveLength(1);
    await control(emulator, 'POST', `/_emulator/deliveries/${gaveUp[0]!.id}/redeliver`);
    await emulator.idle();
    const resent = emulator.deliveries().find((d) => d.redeliveryOf === gaveUp[0]!.id);
    expect(JSON.parse(resent?.attempts[0]?.responseBody ?? '{}')).toMatchObject({ reason: 'duplicate' });

    expect(handled).toEqual([
      { name: 'transaction_updated', id: second.id, status: 'canceled', source: 'webhook' },
      { name: 'transaction_updated', id: first.id, status: 'canceled', source: 'reconcile' },
    ]);
  });

  it('a paid charge whose amount reads as a fraction is counted failed, reaches onError and the logger, and is never handled', async () => {
    const emulator = await startEmulator({ webhookSecret: secret, retry: { backoff: { delayMs: 20 } }, deliveryTimeoutMs: 2_000 });
    cleanups.push(() => emulator.close());
    // The gateway's read answer, rewritten on the wire to carry 10.50 as a decimal, as some gateways' dashboards do.
    const decimalAmounts = async (input: string, init: RequestInit) => {
      const response = await fetch(input, init);
      if (!input.includes('/api/v1/transactions/')) return response;
      const body = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, amountInCents: 10.5 }), { status: response.status, headers: response.headers });
    };
    const handled: string[] = [];
    const failures: ReconcileFailure[] = [];
    const errors: object[] = [];
    const logger = { info() {}, warn() {}, error: (fields: object) => void errors.push(fields) };
    const reconciler = createReconciler({
      client: createClient({ ...emulator.credentials, baseUrl: emulator.url, fetch: decimalAmounts }),
      processing: createProcessing({ store: memoryDedupeStore() }).onAny((event) => void handled.push(event.name)),
      minAgeMs: 0,
      logger,
      onError: (failure) => void failures.push(failure),
    });
    const pix = createClient({ ...emulator.credentials, baseUrl: emulator.url, watch: reconciler });
    const charge = await pix.createCharge({ amountInCents: 1050, customer });
    expect(charge.watch).toEqual({ ok: true, attempts: 1 });
    await control(emulator, 'POST', `/_emulator/transactions/${charge.id}/pay`);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, recovered: 0, finished: 0, failed: 1 });
    expect(failures).toMatchObject([{ reason: 'record_unreadable', chargeId: charge.id, error: { code: 'response_invalid' } }]);
    expect(errors).toHaveLength(1);
    expect(handled).toEqual([]);
    expect(await reconciler.metrics()).toMatchObject({ watched: 1 });
  });
});
