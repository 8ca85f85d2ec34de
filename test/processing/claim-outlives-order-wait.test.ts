import { describe, expect, it } from 'vitest';
import {
  createProcessing,
  memoryDedupeStore,
  memoryPaymentBook,
  type AcceptResult,
  type DedupeStore,
  type PaymentBook,
  type Processing,
} from '../../src/index.js';
import { paidEvent, refundedEvent } from '../order/order-recorder.js';

// A delivery that waits for its charge's order lease (another event of the charge runs) holds its claim while it
// waits: a wait past claimTtlMs must not let the claim lapse, or the sender's retry claims the same event, waits
// too, and both run it (the claim used to be held only once the run itself was).
const ttlMs = 100;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A store as a remote one looks to processing: asynchronous, no `pin` (its claims are renewed on a timer). */
function remoteLike(renews: (key: string) => boolean): DedupeStore {
  const memory = memoryDedupeStore();
  return {
    claim: async (key, owner, ms) => memory.claim(key, owner, ms),
    complete: async (key, owner, ms) => memory.complete(key, owner, ms),
    release: async (key, owner) => memory.release(key, owner),
    extend: async (key, owner, ms) => renews(key) && memory.extend(key, owner, ms),
  };
}

/** Paid runs (held on a gate) and its charge's refund arrives: it is claimed, then waits for the paid run's lease. */
async function refundWaitingOnPaid(store: DedupeStore, book: PaymentBook | undefined) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const ran: string[] = [];
  const processing: Processing = createProcessing({
    store,
    ...(book !== undefined && { book }),
    claimTtlMs: ttlMs,
    orderWaitMs: 2_000,
    deadlineMs: 60_000,
  }).on(['transaction_paid', 'transaction_refunded'], async (event) => {
    ran.push(event.name);
    if (event.name === 'transaction_paid') await gate;
  });
  const paid = processing.accept(paidEvent('ch_wait'));
  await until(() => ran.length === 1);
  const refund = refundedEvent('ch_wait');
  const waiting = processing.accept(refund);
  // Three claim TTLs: the waiting claim would have lapsed had nothing held it while it waited.
  await new Promise((resolve) => setTimeout(resolve, ttlMs * 3));
  expect(ran).toEqual(['transaction_paid']);
  return { processing, ran, paid, refund, waiting, release };
}

describe.each<[string, () => DedupeStore, () => PaymentBook | undefined]>([
  ['memory store, no book', () => memoryDedupeStore(), () => undefined],
  ['memory store and book', () => memoryDedupeStore(), () => memoryPaymentBook()],
  ['remote-like store', () => remoteLike(() => true), () => undefined],
])('a claim waiting for its resource order lease outlives claimTtlMs (%s)', (_, storeOf, bookOf) => {
  it("the retry during the wait answers in_flight; the event runs once, after the charge's first", async () => {
    const { processing, ran, paid, refund, waiting, release } = await refundWaitingOnPaid(storeOf(), bookOf());
    // Claimed or refused before the paid run is released (claimed in the turn it arrives in process).
    const retry: Promise<AcceptResult> = processing.accept(refund);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();

    expect(await retry).toMatchObject({ reason: 'in_flight' });
    expect(await paid).toEqual({ key: expect.any(String) });
    expect(await waiting).toEqual({ key: expect.any(String) });
    expect(await processing.drain()).toBe(true);
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
    // Done now: a later retry is a duplicate.
    expect(await processing.accept(refund)).toMatchObject({ reason: 'duplicate' });
  });
});

describe('a remote claim that cannot be renewed while its delivery waits for the order', () => {
  it('is never run: the delivery answers store_unavailable, its claim and ticket given back; the retry runs it once', async () => {
    let refundRenews = false;
    const store = remoteLike((key) => !key.includes('refund') || refundRenews);
    const { processing, ran, paid, refund, waiting, release } = await refundWaitingOnPaid(store, undefined);
    release();
    expect(await paid).toEqual({ key: expect.any(String) });
    expect(await waiting).toMatchObject({ reason: 'store_unavailable', hint: expect.stringContaining('could not be renewed') });
    expect(ran).toEqual(['transaction_paid']);

    refundRenews = true;
    expect(await processing.accept(refund)).toEqual({ key: expect.any(String) });
    expect(await processing.drain()).toBe(true);
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
  });
});
