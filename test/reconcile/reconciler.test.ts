import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type PixClient } from '../../src/client/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { eventKey, normalizeEvent, PixhookConfigError, type Logger, type PixEvent } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import {
  createReconciler,
  maxReadsPerCharge,
  memoryWatchStore,
  reconcilerMetricsToPrometheus,
  type ReconcileFailure,
  type ReconcilerClient,
  type ReconcilerOptions,
  type ReconcilerProcessing,
} from '../../src/reconcile/index.js';
import { customer } from '../helpers/customer.js';

// The gateway and the client are real (the emulator over HTTP); `accept` records what processing got.
// The end-to-end test (reconcile-e2e.test.ts) runs the real processing.

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
  const emulator: Emulator = await startEmulator({ now: clock.now, retry: { backoff: { delayMs: 1 } }, ...emulatorOptions });
  cleanups.push(() => emulator.close());
  const reads = () => emulator.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/transactions/')).length;
  const client = (watch?: { watch(id: string, createdAt?: number): unknown }): PixClient =>
    createClient({
      ...emulator.credentials,
      baseUrl: emulator.url,
      variant: emulator.variant === 'a' ? 'a' : 'b',
      now: clock.now,
      retry: { attempts: clientRetries + 1, backoff: { delayMs: 1 } },
      ...(watch && { watch }),
    });
  return { emulator, clock, client, reads };
}

describe('createReconciler: schedule', () => {
  it('waits minAgeMs, reads on the back-off schedule, and hands a final status to processing once', async () => {
    const { emulator, clock, client, reads } = await setup();
    const { accepted, processing } = recorder();
    const reconcilerClient = client();
    const reconciler = createReconciler({
      client: reconcilerClient,
      processing,
      now: clock.now,
      minAgeMs: 2 * minute,
      retry: { backoff: [5 * minute, 15 * minute, 60 * minute] },
    });
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
    const reconciler = createReconciler({
      client: client(),
      processing,
      now: clock.now,
      minAgeMs: 0,
      maxAgeMs: 30 * minute,
      retry: { backoff: [minute] },
    });
    const pix = client(reconciler);
    const [refunded, expired, pending] = [
      await pix.createCharge({ amountInCents: 300, customer }),
      await pix.createCharge({ amountInCents: 5, customer }),
      await pix.createCharge({ amountInCents: 7, customer }),
    ];
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
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, retry: { backoff: [10 * minute] } });
    const pix = client(reconciler);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await pix.createCharge({ amountInCents: 100 + i, customer })).id);
    for (const id of ids) emulator.pay(id);
    // concurrency 1 keeps the answers in order
    const serial = createReconciler({
      client: client(),
      processing,
      now: clock.now,
      minAgeMs: 0,
      retry: { backoff: [10 * minute] },
      concurrency: 1,
    });
    for (const id of ids) await serial.watch(id, clock.now());
    expect(await serial.runOnce()).toMatchObject({ checked: 3, recovered: 0, finished: 1, failed: 2 });
    clock.advance(minute);
    expect(await serial.runOnce()).toMatchObject({ checked: 2, recovered: 2, finished: 2 });
    expect(accepted).toHaveLength(5);
    expect(await reconciler.metrics()).toMatchObject({ watched: 3 });
  });

  it("reads charges from listPending (the merchant's own list), with their creation time", async () => {
    const { emulator, clock, client } = await setup();
    const { accepted, processing } = recorder();
    const pix = client();
    const charge = await pix.createCharge({ amountInCents: 4200, customer });
    emulator.pay(charge.id);
    const created = new Date(clock.now()).toISOString();
    const reconciler = createReconciler({
      client: client(),
      processing,
      now: clock.now,
      listPending: async () => [{ chargeId: charge.id, createdAt: created }],
    });
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
    const reconciler = createReconciler({
      client: client(),
      processing,
      now: clock.now,
      minAgeMs: 0,
      queryLimitPerMinute: 10,
      querySharePerMinute: 0.5,
    });
    const pix = client(reconciler);
    for (let i = 0; i < 12; i++) await pix.createCharge({ amountInCents: 100 + i, customer });
    expect(await reconciler.runOnce()).toMatchObject({ checked: 5, deferred: 7 });
    clock.advance(59_999);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 0 });
    clock.advance(1);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 5 });
    expect(reads()).toBe(10);
  });

  it("leaves the merchant's share of the gateway's own limit alone (X-RateLimit-Remaining), then resumes after the reset", async () => {
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
    const reconciler = createReconciler({
      client: { getTransaction: (id) => reader.getTransaction(id) },
      processing,
      now: clock.now,
      minAgeMs: 0,
      concurrency: 1,
    });
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
    const options = (processing: ReconcilerProcessing): ReconcilerOptions => ({
      client: client(),
      processing,
      watchStore: store,
      now: clock.now,
      minAgeMs: 0,
      batch: 7,
    });
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

function webhookKey(payload: unknown): string {
  const normalized = normalizeEvent(payload);
  if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('not an event');
  return eventKey(normalized.event);
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const at = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  const logger: Logger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, logger };
}

/** A client that answers every read with one record (what a custom ReconcilerClient, or a gateway, may give). */
function fixedClient(
  record: { status: string; amountInCents: unknown; raw?: Record<string, unknown> },
  variant?: string,
): ReconcilerClient {
  return {
    ...(variant !== undefined && { variant }),
    getTransaction: async (id) => ({
      id,
      status: record.status,
      amountInCents: record.amountInCents as number,
      raw: { id, ...record.raw },
    }),
  };
}

describe("createReconciler: the event and key the variant's webhook carries", () => {
  it("Variant A: an expiry (status canceled) is recovered as transaction_updated, the webhook's name, variant and key", async () => {
    const { emulator, clock, client } = await setup();
    const { accepted, processing } = recorder();
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, retry: { backoff: [minute] } });
    const charge = await client(reconciler).createCharge({ amountInCents: 300, customer });
    emulator.expire(charge.id);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, recovered: 1, finished: 1, failed: 0 });
    const event = accepted[0] as PixEvent;
    expect(event).toMatchObject({
      name: 'transaction_updated',
      variant: 'a',
      source: 'reconcile',
      transaction: { id: charge.id, status: 'canceled', amountInCents: 300 },
    });
    // What the emulator's Variant A webhook for that expiry carries (the emulator builds it with buildPayload).
    const webhook = buildPayload('transaction_updated', { variant: 'a', id: charge.id, status: 'canceled', amountInCents: 300 });
    expect(eventKey(event)).toBe(webhookKey(webhook));
    expect(eventKey(event)).toBe(`transaction_updated:${charge.id}:canceled:300`);
  });

  it('a charge whose final event the book holds is known: counted as held, not failed, and not read again', async () => {
    const { emulator, clock, client, reads } = await setup();
    const { accepted, processing } = recorder(() => ({ reason: 'held' }));
    const reconciler = createReconciler({ client: client(), processing, now: clock.now, minAgeMs: 0, retry: { backoff: [minute] } });
    const charge = await client(reconciler).createCharge({ amountInCents: 300, customer });
    emulator.pay(charge.id);
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, held: 1, finished: 1, failed: 0 });
    const readsAfter = reads();
    for (let i = 0; i < 3; i++) {
      clock.advance(10 * minute);
      expect(await reconciler.runOnce()).toMatchObject({ checked: 0, held: 0, failed: 0 });
    }
    expect([reads(), accepted.length]).toEqual([readsAfter, 1]);
  });

  it("takes the variant from the client, or from the option; the short form's event carries no refund, as its webhook", async () => {
    const refund = { id: 'rf_9', amountInCents: 100, reason: 'partial', refundedAt: '2026-11-23T10:00:00Z' };
    const record = { status: 'refunded', amountInCents: 300, raw: { refund } };
    const events: Record<string, PixEvent> = {};
    for (const [name, options] of [
      ['default', { client: fixedClient(record) }],
      ['client b', { client: fixedClient(record, 'b') }],
      ['option short', { client: fixedClient(record, 'b'), variant: 'short' as const }],
    ] as const) {
      const { accepted, processing } = recorder();
      const reconciler = createReconciler({ ...options, processing, minAgeMs: 0 });
      await reconciler.watch('tx_r');
      expect(await reconciler.runOnce()).toMatchObject({ recovered: 1, failed: 0 });
      events[name] = accepted[0] as PixEvent;
    }
    expect(events['default']?.variant).toBe('a');
    expect(events['client b']?.variant).toBe('b');
    expect(events['option short']?.variant).toBe('short');
    const a = buildPayload('transaction_refunded', { variant: 'a', id: 'tx_r', amountInCents: 300, refund });
    const b = buildPayload('transaction_refunded', { variant: 'b', id: 'tx_r', amountInCents: 300, refund });
    const short = buildPayload('transaction_refunded', { variant: 'short', id: 'tx_r', amountInCents: 300 });
    expect(eventKey(events['default'] as PixEvent)).toBe(webhookKey(a));
    expect(eventKey(events['client b'] as PixEvent)).toBe(webhookKey(b));
    expect(webhookKey(b)).toBe('transaction_refunded:tx_r:refunded:300:ra=100:ri=rf_9');
    expect(eventKey(events['option short'] as PixEvent)).toBe(webhookKey(short));
    expect(webhookKey(short)).toBe('transaction_refunded:tx_r:refunded:300');
  });

  it('a status named like an Object property is not final, and no crash', async () => {
    const { accepted, processing } = recorder();
    const reconciler = createReconciler({ client: fixedClient({ status: 'constructor', amountInCents: 1 }), processing, minAgeMs: 0 });
    await reconciler.watch('tx_o');
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, recovered: 0, failed: 0 });
    expect(accepted).toHaveLength(0);
  });

  it('refuses an unknown variant', () => {
    const { processing } = recorder();
    expect(() =>
      createReconciler({ client: fixedClient({ status: 'paid', amountInCents: 1 }), processing, variant: 'c' as never }),
    ).toThrow(/`variant` must be "a", "b" or "short"/);
  });
});

describe('createReconciler: a paid record it cannot read', () => {
  it('an amount that is not integer cents counts as failed, reaches onError and the logger, and is read again later', async () => {
    const failures: ReconcileFailure[] = [];
    const { lines, logger } = recordingLogger();
    const { accepted, processing } = recorder();
    let now = Date.parse('2026-11-23T10:00:00Z');
    const reconciler = createReconciler({
      client: fixedClient({ status: 'paid', amountInCents: 10.5 }),
      processing,
      minAgeMs: 0,
      retry: { backoff: [minute] },
      now: () => now,
      logger,
      onError: (failure) => void failures.push(failure),
    });
    await reconciler.watch('tx_frac');
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, recovered: 0, finished: 0, failed: 1 });
    expect(accepted).toHaveLength(0);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      reason: 'record_unreadable',
      chargeId: 'tx_frac',
      status: 'paid',
      error: { code: 'response_invalid' },
    });
    expect(failures[0]?.error.message).toMatch(
      /transaction_paid event: data\.amountInCents: expected non-negative integer cents, found number \(fraction\)/,
    );
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ chargeId: 'tx_frac', status: 'paid' });
    // Still followed: read again on the back-off schedule, and reported again.
    expect(await reconciler.metrics()).toMatchObject({ watched: 1 });
    now += minute;
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, failed: 1 });
    expect(failures).toHaveLength(2);
  });

  it("an amount the client refuses (a fraction in the gateway's answer) counts as failed and reaches onError too", async () => {
    const { emulator, clock } = await setup();
    // The gateway's answer to a read, rewritten on the wire: the real client parses it.
    const fractional: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).includes('/api/v1/transactions/')) return response;
      const body = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, amountInCents: 10.5 }), { status: response.status, headers: response.headers });
    };
    const reader = createClient({
      ...emulator.credentials,
      baseUrl: emulator.url,
      now: clock.now,
      retry: { backoff: { delayMs: 1 } },
      fetch: fractional,
    });
    const failures: ReconcileFailure[] = [];
    const { lines, logger } = recordingLogger();
    const { processing } = recorder();
    const reconciler = createReconciler({
      client: reader,
      processing,
      now: clock.now,
      minAgeMs: 0,
      logger,
      onError: (f) => void failures.push(f),
    });
    const charge = await createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now }).createCharge({
      amountInCents: 1050,
      customer,
    });
    emulator.pay(charge.id);
    await reconciler.watch(charge.id, clock.now());
    expect(await reconciler.runOnce()).toMatchObject({ checked: 1, recovered: 0, failed: 1 });
    expect(failures).toMatchObject([{ reason: 'record_unreadable', chargeId: charge.id, error: { code: 'response_invalid' } }]);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('an onError that throws or rejects does not stop the run', async () => {
    const { processing } = recorder();
    for (const onError of [
      () => {
        throw new Error('boom');
      },
      () => Promise.reject(new Error('boom')),
    ]) {
      const reconciler = createReconciler({
        client: fixedClient({ status: 'paid', amountInCents: undefined }),
        processing,
        minAgeMs: 0,
        onError,
      });
      await reconciler.watch('tx_none');
      expect(await reconciler.runOnce()).toMatchObject({ checked: 1, failed: 1 });
    }
  });
});

describe('createReconciler: lifecycle and options', () => {
  it('start() runs at once and then every everyMs; stop() waits for the run and ends the timer', async () => {
    const { emulator, clock, client, reads } = await setup();
    let recovered: () => void = () => {};
    const first = new Promise<void>((resolve) => (recovered = resolve));
    const { processing } = recorder();
    const reconciler = createReconciler({
      client: client(),
      processing,
      now: clock.now,
      minAgeMs: 0,
      everyMs: 5,
      onRecovered: () => recovered(),
    });
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
    expect(() => createReconciler({ client: client(), processing, retry: { backoff: [] } })).toThrow(
      'pixhook: `retry.backoff` must list at least one wait',
    );
    expect(() => createReconciler({ client: client(), processing, retry: { backoff: [minute, 0] } })).toThrow(
      'pixhook: `retry.backoff[1]` must be an integer from 1 to 86400000',
    );
    expect(() => createReconciler({ client: client(), processing, retry: { attempts: 3 } })).toThrow(
      /^pixhook: `retry.attempts` does not apply to the reconciler/,
    );
    expect(() => createReconciler({ client: client(), processing, backoffMs: [minute] } as never)).toThrow(
      'pixhook: `backoffMs` was renamed: use `retry: { backoff: [ms, …] }` (the check schedule)',
    );
    expect(() => createReconciler({ client: {} as never, processing })).toThrow(PixhookConfigError);
  });
});

describe('API cost', () => {
  it('a charge that never becomes final costs at most 50 reads over 48 h with the defaults', () => {
    expect(maxReadsPerCharge(2 * minute, 48 * 60 * minute, [5 * minute, 15 * minute, 60 * minute])).toBe(50);
    expect(maxReadsPerCharge(2 * minute, 12 * 60 * minute, [5 * minute, 15 * minute, 60 * minute])).toBe(14);
  });
});
