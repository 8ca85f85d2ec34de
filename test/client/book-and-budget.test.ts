import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PixRateLimitedError, readBudget, type ClientOptions } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createProcessing, memoryPaymentBook, PixhookConfigError, type ExpectedCharge } from '../../src/index.js';
import { createReconciler } from '../../src/reconcile/index.js';
import { customer, fakeClock } from './fake-clock.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

async function setup(options: Partial<ClientOptions> = {}) {
  const clock = fakeClock();
  emulator = await startEmulator({ now: clock.now });
  const errors: { fields: object; message?: string }[] = [];
  const client = createClient({
    ...emulator.credentials,
    baseUrl: emulator.url,
    now: clock.now,
    sleep: clock.sleep,
    logger: { info() {}, warn() {}, error: (fields, message) => void errors.push({ fields, message }) },
    ...options,
  });
  return { client, clock, errors, emulator };
}

describe('createClient({ book }): every charge created is expected in the book', () => {
  it('records id, amount and the customer as payer; the book then judges a payment against it', async () => {
    const book = memoryPaymentBook();
    const { client } = await setup({ book });
    const charge = await client.createCharge({ amountInCents: 2590, customer });
    expect(charge.expected).toEqual({ ok: true });
    expect((await book.get(charge.id))?.expected).toEqual({ amountInCents: 2590, payerDocument: customer.document.replace(/\D/g, '') });
  });

  it('a book that rejects never loses the created charge: shown on the result and logged as an error', async () => {
    const calls: ExpectedCharge[] = [];
    const failing = {
      async expect(charge: ExpectedCharge) {
        calls.push(charge);
        throw new Error('book is down');
      },
    };
    const { client, errors, emulator } = await setup({ book: failing });
    const charge = await client.createCharge({ amountInCents: 1000, customer });
    expect(charge.id).toMatch(/^txn_/);
    expect(charge.expected).toEqual({ ok: false, error: expect.objectContaining({ message: 'book is down' }) });
    expect(emulator.charges().map((c) => c.id)).toEqual([charge.id]);
    expect(calls).toEqual([{ id: charge.id, amountInCents: 1000, payerDocument: customer.document }]);
    expect(errors).toEqual([{ fields: expect.objectContaining({ chargeId: charge.id }), message: expect.stringMatching(/payment book/) }]);
  });

  it('refuses a book without expect, and a readBudget that is not one', () => {
    const base = { apiKey: 'k', apiSecret: 's', baseUrl: 'http://127.0.0.1:1' };
    expect(() => createClient({ ...base, book: {} as never })).toThrow(PixhookConfigError);
    expect(() => createClient({ ...base, readBudget: { perMinute: 5 } as never })).toThrow(/`readBudget` must be a read budget/);
    expect(() => readBudget({ perMinute: 0 })).toThrow(/`readBudget.perMinute` must be an integer from 1/);
  });
});

describe('readBudget: one budget for every read through the client', () => {
  it('a sliding minute: perMinute reads, then a wait until the oldest leaves the window', () => {
    let now = 0;
    const budget = readBudget({ perMinute: 2, now: () => now });
    expect([budget.take(), budget.take()]).toEqual([0, 0]);
    now = 10_000;
    expect(budget.take()).toBe(50_000);
    expect(budget.remaining()).toBe(0);
    now = 60_000;
    expect(budget.remaining()).toBe(2);
    expect(budget.take()).toBe(0);
  });

  it('spent: getTransaction fails at once as a 429 READ_BUDGET_SPENT without a request; the reconciler sharing it pauses', async () => {
    const { client, clock, emulator } = await setup();
    const charge = await client.createCharge({ amountInCents: 1000, customer });
    const budget = readBudget({ perMinute: 1, now: clock.now });
    const budgeted = createClient({
      ...emulator.credentials,
      baseUrl: emulator.url,
      now: clock.now,
      sleep: clock.sleep,
      readBudget: budget,
    });
    expect((await budgeted.getTransaction(charge.id)).status).toBe('pending');
    const reads = () => emulator.requests().filter((r) => r.method === 'GET').length;
    const before = reads();
    const spent = await budgeted.getTransaction(charge.id).catch((error: unknown) => error);
    expect(spent).toBeInstanceOf(PixRateLimitedError);
    expect(spent).toMatchObject({ status: 429, apiCode: 'READ_BUDGET_SPENT', retryAfter: 60 });
    expect(reads()).toBe(before);

    // The reconciler on the same client meets the same budget, and pauses until it frees up.
    const reconciler = createReconciler({ client: budgeted, processing: createProcessing(), minAgeMs: 0, now: clock.now });
    await reconciler.watch(charge.id, clock.now() - 1);
    const run = await reconciler.runOnce();
    expect(run).toMatchObject({ checked: 0, deferred: 1 });
    expect((await reconciler.metrics()).pausedUntil).toBeGreaterThan(clock.now());
    expect(reads()).toBe(before);
  });
});
