import { describe, expect, it } from 'vitest';
import { createProcessing, memoryDedupeStore, memoryPaymentBook, type AckMode, type Processing } from '../../src/index.js';
import { deliverPairs, orderRecorder, orderViolations, paidEvent, refundedEvent } from './order-recorder.js';

const charges = Array.from({ length: 40 }, (_, i) => `ch_mem_${i}`);

describe.each<AckMode>(['inline', 'background'])('two processings on one memory store and book (%s)', (mode) => {
  it("40 charges, paid and refunded at once on the two: one charge's handlers never overlap, paid's finish before refunded's start", async () => {
    const store = memoryDedupeStore();
    const book = memoryPaymentBook();
    const recorder = orderRecorder(charges);
    recorder.watch(store);
    const instances = ['a', 'b'].map((name) => {
      const processing = createProcessing({
        mode,
        store,
        book,
        orderWaitMs: 60_000,
        ...(mode === 'background' ? { background: { concurrency: 100 } } : { deadlineMs: 60_000 }),
      });
      recorder.register(processing, name);
      return processing;
    }) as [Processing, Processing];
    const results = await deliverPairs(instances, charges, recorder);
    expect(results.filter((result) => result.reason === 'resource_busy')).toEqual([]);
    await Promise.all(instances.map((processing) => processing.drain()));
    expect(recorder.started.size).toBe(charges.length);
    expect(orderViolations(recorder.spans)).toEqual([]);
  });
});

describe('resource_busy in memory', () => {
  it('past orderWaitMs the later event is answered resource_busy, its claim given back: the retry runs it after the first', async () => {
    const store = memoryDedupeStore();
    const book = memoryPaymentBook();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const make = () =>
      createProcessing({ store, book, orderWaitMs: 20 }).on(['transaction_paid', 'transaction_refunded'], async (event) => {
        ran.push(event.name);
        if (event.name === 'transaction_paid') await gate;
      });
    const [a, b] = [make(), make()];
    const paid = a.accept(paidEvent('ch_busy'));
    await until(() => ran.length === 1);
    expect(await b.accept(refundedEvent('ch_busy'))).toMatchObject({ reason: 'resource_busy' });
    release();
    expect(await paid).toEqual({ key: expect.any(String) });
    expect(await b.accept(refundedEvent('ch_busy'))).toEqual({ key: expect.any(String) });
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
  });

  it('a synchronous take is renewed once its inline run goes asynchronous: three lease TTLs later the charge is still busy', async () => {
    const store = memoryDedupeStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    // No book: the fast path, where the lease is renewed only once the run outlives the turn it was taken in.
    const make = () =>
      createProcessing({ store, claimTtlMs: 200, orderWaitMs: 1, deadlineMs: 60_000 }).on(
        ['transaction_paid', 'transaction_refunded'],
        async (event) => {
          ran.push(event.name);
          if (event.name === 'transaction_paid') await gate;
        },
      );
    const [a, b] = [make(), make()];
    const paid = a.accept(paidEvent('ch_renewed'));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await b.accept(refundedEvent('ch_renewed'))).toMatchObject({ reason: 'resource_busy' });
    expect(ran).toEqual(['transaction_paid']);
    release();
    expect(await paid).toEqual({ key: expect.any(String) });
    expect(await b.accept(refundedEvent('ch_renewed'))).toEqual({ key: expect.any(String) });
  });

  it('a different charge never waits for another charge', async () => {
    const store = memoryDedupeStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const make = () =>
      createProcessing({ store, orderWaitMs: 20 }).on('transaction_paid', async (event) => {
        if (event.transaction.id === 'ch_slow') await gate;
      });
    const [a, b] = [make(), make()];
    const slow = a.accept(paidEvent('ch_slow'));
    expect(await b.accept(paidEvent('ch_fast'))).toEqual({ key: expect.any(String) });
    release();
    await slow;
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}
