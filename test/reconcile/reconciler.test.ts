import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type PixClient } from '../../src/client/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { PixhookConfigError, type PixEvent } from '../../src/index.js';
import {
  createReconciler,
  maxReadsPerCharge,
  memoryWatchStore,
  reconcilerMetricsToPrometheus,
  type ReconcilerOptions,
  type ReconcilerProcessing,
} from '../../src/reconcile/index.js';

// The gateway and the client are real (the emulator over HTTP); `accept` records what processing got.
// The end-to-end test (reconcile-e2e.test.ts) runs the real processing.

const customer = { name: 'Ana Souza', email: 'ana@example.com.br', documentType: 'cpf' as const, document: '52998224725', phone: '11999998888' };
const minute = 60_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function recorder(answer: (event: PixEvent) => { reason?: string } = () => ({})) {
  const accepted: PixEvent[] = [];
  const processing: ReconcilerProcessing = {
    accept: async (event) => {
      accepted.push(event);
      return { ...answer(event), key: `${event.name}:${event.kind === 'transaction' ? event.transaction.id : ''}` };
    },
  };
  return { accepted, processing };
}

async function setup(emulatorOptions: EmulatorOptions = {}, clientRetries = 3) {
  let now = Date.parse('2026-11-23T10:00:00Z');
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const emulator: Emulator = await startEmulator({ now: clock.now, backoffMs: 1, ...emulatorOptions });
  cleanups.push(() => emulator.close());
  const reads = () => emulator.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/transactions/')).length;
  const client = (watch?: { watch(id: string, createdAt?: number): unknown }): PixClient =>
    createClient({
      ...emulator.credentials,
      baseUrl: emulator.url,
      variant: emulator.variant === 'a' ? 'a' : 'b',
      now: clock.now,
      maxRetries: clientRetries,
      retryBaseDelayMs: 1,
      ...(watch && { watch }),
    });
  return { emulator, clock, client, reads };
}

describe('createReconciler: schedule', () => {
  it('waits minAgeMs, reads on the back-off schedule, and hands a final status to processing once', async () => {
    const { emulator, clock, client, reads } = await setup();
    const { accepted, processing } = recorder();
    const reconcilerClient = client();
    const reconciler = createReconciler({ client: reconcilerClient, processing, now: clock.now, minAgeMs: 2 * minute, backoffMs: [5 * minute, 15 * minute, 60 * minute] });
    const pix = client(reconciler);
    const charges = [];
    for (const amountInCents of [1234, 5678, 910]) charges.push(await pix.createCharge({ amountInCents, customer }));

    expect(await reconciler.runOnce()).toMatchObject({ checked: 0, recovered: 0, finished: 0 });
    expect(reads()).toBe(0);
    clock.advance(2 * minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 3, recovered: 0, finished: 0 });
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });

    emulator.pay(charges[1]!.id);
    clock.advance(5 * minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 3, recovered: 1, finished: 1 });
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({
      kind: 'transaction',
      name: 'transaction_paid',
      source: 'reconcile',
      transaction: { id: charges[1]!.id, status: 'paid', amountInCents: 5678 },
    });
    expect(accepted[0]?.kind === 'transaction' && accepted[0].transaction.endToEndId).toMatch(/^E\d{8}/);

    // The third read comes 15 min later, not 5.
    clock.advance(5 * minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    clock.advance(10 * minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 2, recovered: 0 });
    expect(reads()).toBe(8);
    const metrics = await reconciler.metrics();
    expect(metrics).toMatchObject({ watched: 2, checked: 8, recovered: 1, finished: 1, lagMs: 22 * minute });
    expect(reconcilerMetricsToPrometheus(metrics)).toContain('pixhook_reconcile_lag_seconds 1320\n');
  });

  it('turns refunded, canceled (A) and expired (B) into their events, and stops after maxAgeMs without one', async () => {
    const { emulator, clock, client } = await setup({ variant: 'b' });
    const { accepted, processing } = recorder();
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, maxAgeMs: 30 * minute, backoffMs: [minute] });
    const pix = client(reconciler);
    const [refunded, expired, pending] = [await pix.createCharge({ amountInCents: 300, customer }), await pix.createCharge({ amountInCents: 5, customer }), await pix.createCharge({ amountInCents: 7, customer })];
    emulator.pay(refunded!.id);
    emulator.refund(refunded!.id);
    emulator.expire(expired!.id);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 3, recovered: 2, finished: 2 });
    expect(accepted.map((e) => [e.name, e.kind === 'transaction' && e.transaction.status])).toEqual([
      ['transaction_refunded', 'refunded'],
      ['transaction_updated', 'expired'],
    ]);
    clock.advance(30 * minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0, finished: 1 });
    expect(await reconciler.metrics()).toMatchObject({ watched: 0, lagMs: 0 });
    expect(pending).toBeDefined();
  });

  it('a duplicate (the webhook did it) finishes without recovering; in_flight or a failed handler is tried again soon', async () => {
    const { emulator, clock, client } = await setup();
    const answers = ['duplicate', 'in_flight', 'handler_failed'];
    const { accepted, processing } = recorder((event) => {
      const reason = answers.shift();
      return reason === undefined || event.kind !== 'transaction' ? {} : { reason };
    });
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, backoffMs: [10 * minute] });
    const pix = client(reconciler);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await pix.createCharge({ amountInCents: 100 + i, customer })).id);
    for (const id of ids) emulator.pay(id);
    // concurrency 1 keeps the answers in order
    const serial = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, backoffMs: [10 * minute], concurrency: 1 });
    for (const id of ids) await serial.watch(id, clock.now());
    expect(await serial.runOnce()).toMatchObject({ checked: 3, recovered: 0, finished: 1, failed: 2 });
    clock.advance(minute);
    expect(await serial.runOnce()).toMatchObject({ checked: 2, recovered: 2, finished: 2 });
    expect(accepted).toHaveLength(5);
    expect(await reconciler.metrics()).toMatchObject({ watched: 3 });
  });

  it('reads charges from listPending (the merchant\'s own list), with their creation time', async () => {
    const { emulator, clock, client } = await setup();
    const { accepted, processing } = recorder();
    const pix = client();
    const charge = await pix.createCharge({ amountInCents: 4200, customer });
    emulator.pay(charge.id);
    const created = new Date(clock.now()).toISOString();
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, listPending: async () => [{ chargeId: charge.id, createdAt: created }] });
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    clock.advance(2 * minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, recovered: 1 });
    expect(accepted[0]).toMatchObject({ transaction: { amountInCents: 4200 } });
  });
});

describe('createReconciler: limits', () => {
  it('never spends more than its share of the query limit per minute', async () => {
    const { clock, client, reads } = await setup({ rateLimits: { readTransaction: Infinity } });
    const { processing } = recorder();
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, queryLimitPerMinute: 10, querySharePerMinute: 0.5 });
    const pix = client(reconciler);
    for (let i = 0; i < 12; i++) await pix.createCharge({ amountInCents: 100 + i, customer });
    expect(await reconciler.runOnce()).toMatchObject({ checked: 5, deferred: 7 });
    clock.advance(59_999);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    clock.advance(1);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 5 });
    expect(reads()).toBe(10);
  });

  it('leaves the merchant\'s share of the gateway\'s own limit alone (X-RateLimit-Remaining), then resumes after the reset', async () => {
    const { clock, client, reads } = await setup({ rateLimits: { readTransaction: 4 } });
    const { processing } = recorder();
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, concurrency: 1 });
    const pix = client(reconciler);
    for (let i = 0; i < 6; i++) await pix.createCharge({ amountInCents: 100 + i, customer });
    // Limit 4, share 0.5: two reads, then Remaining 2 is the merchant's.
    expect(await reconciler.runOnce()).toMatchObject({ checked: 2, deferred: 4 });
    expect((await reconciler.metrics()).pausedUntil).toBeGreaterThan(clock.now());
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    expect(reads()).toBe(2);
    clock.advance(minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 2 });
  });

  it('stops at a 429 the client gives up on, and waits Retry-After', async () => {
    const { emulator, clock, client, reads } = await setup({ rateLimits: { readTransaction: 2 } }, 0);
    const { processing } = recorder();
    // A client that shares no X-RateLimit figures: only the 429 itself can stop the reads.
    const reader = client();
    const reconciler = createReconciler({ client: { getTransaction: (id) => reader.getTransaction(id) }, processing, now: clock.now, minAgeMs: 0, concurrency: 1 });
    const pix = client(reconciler);
    for (let i = 0; i < 4; i++) await pix.createCharge({ amountInCents: 100 + i, customer });
    expect(await reconciler.runOnce()).toMatchObject({ checked: 2, deferred: 2, failed: 0 });
    expect(emulator.requests().filter((r) => r.status === 429)).toHaveLength(1);
    expect(reads()).toBe(3);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    clock.advance(minute);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 2 });
  });
});

describe('createReconciler: one schedule for several instances', () => {
  it('two reconcilers on one store never read the same charge', async () => {
    const { emulator, clock, client, reads } = await setup({ rateLimits: { readTransaction: Infinity } });
    const store = memoryWatchStore({ now: clock.now });
    const a = recorder();
    const b = recorder();
    const options = (processing: ReconcilerProcessing): ReconcilerOptions => ({ client: client(), processing, watchStore: store, now: clock.now, minAgeMs: 0, batch: 7 });
    const first = createReconciler(options(a.processing));
    const second = createReconciler(options(b.processing));
    const pix = client(store);
    for (let i = 0; i < 12; i++) emulator.pay((await pix.createCharge({ amountInCents: 100 + i, customer })).id);
    const [ra, rb] = await Promise.all([first.runOnce(), second.runOnce()]);
    expect(ra.checked + rb.checked).toBe(12);
    expect(reads()).toBe(12);
    const ids = [...a.accepted, ...b.accepted].map((e) => (e.kind === 'transaction' ? e.transaction.id : ''));
    expect(new Set(ids).size).toBe(12);
  });

  it('a watcher that throws never fails the charge', async () => {
    const { client } = await setup();
    const pix = client({ watch: () => Promise.reject(new Error('store down')) });
    await expect(pix.createCharge({ amountInCents: 100, customer })).resolves.toMatchObject({ status: 'pending' });
  });
});

describe('createReconciler: lifecycle and options', () => {
  it('start() runs at once and then every everyMs; stop() waits for the run and ends the timer', async () => {
    const { emulator, clock, client, reads } = await setup();
    let recovered: () => void = () => {};
    const first = new Promise<void>((resolve) => (recovered = resolve));
    const { processing } = recorder();
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, everyMs: 5, onRecovered: () => recovered() });
    const charge = await client(reconciler).createCharge({ amountInCents: 990, customer });
    emulator.pay(charge.id);
    reconciler.start();
    await first;
    await reconciler.stop();
    const after = reads();
    expect(after).toBe(1);
    expect(await reconciler.metrics()).toMatchObject({ watched: 0, recovered: 1 });
    // Stopped: a charge watched now is never read, though six periods pass (a live timer would read it at once).
    await reconciler.watch(charge.id.replace('txn_', 'txn_x'), clock.now());
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads()).toBe(after);
    expect(await reconciler.metrics()).toMatchObject({ watched: 1, checked: 1 });
  });

  it('refuses bad options with a PixhookConfigError', async () => {
    const { client } = await setup();
    const { processing } = recorder();
    expect(() => createReconciler({ client: client(), processing, querySharePerMinute: 2 })).toThrow(PixhookConfigError);
    expect(() => createReconciler({ client: client(), processing, backoffMs: [] })).toThrow(/backoffMs/);
    expect(() => createReconciler({ client: {} as never, processing })).toThrow(PixhookConfigError);
  });
});

describe('API cost', () => {
  it('a charge that never becomes final costs at most 50 reads over 48 h with the defaults', () => {
    expect(maxReadsPerCharge(2 * minute, 48 * 60 * minute, [5 * minute, 15 * minute, 60 * minute])).toBe(50);
    expect(maxReadsPerCharge(2 * minute, 12 * 60 * minute, [5 * minute, 15 * minute, 60 * minute])).toBe(14);
  });
});
