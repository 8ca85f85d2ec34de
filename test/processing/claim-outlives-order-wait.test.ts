import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createProcessing,
  memoryDedupeStore,
  memoryPaymentBook,
  type AcceptResult,
  type DedupeStore,
  type PaymentBook,
  type Processing,
} from '../../src/index.js';
import { settled, useFakeClock } from '../helpers/fake-clock.js';
import { paidEvent, refundedEvent } from '../order/order-recorder.js';

// A delivery that waits for its charge's order lease (another event of the charge runs) holds its claim while it
// waits: a wait past claimTtlMs must not let the claim lapse, or the sender's retry claims the same event, waits
// too, and both run it (the claim used to be held only once the run itself was).
// Fake clocks (timers, Date and performance, which the memory store reads): the claim outlives its TTL because it is
// held, not because a busy machine fired a renewal in time, and the order wait never runs out on a loaded machine.
const ttlMs = 100;

beforeEach(useFakeClock);

/** A store as a remote one looks to processing: asynchronous, no `pin` (its claims are renewed on a timer). */
function remoteLike(renews: (key: string) => boolean, refused: string[] = []): DedupeStore {
  const memory = memoryDedupeStore();
  return {
    claim: async (key, owner, ms) => memory.claim(key, owner, ms),
    complete: async (key, owner, ms) => memory.complete(key, owner, ms),
    release: async (key, owner) => memory.release(key, owner),
    extend: async (key, owner, ms) => {
      if (renews(key)) return memory.extend(key, owner, ms);
      refused.push(key);
      return false;
    },
  };
}

/** Paid runs (held on a gate) and its charge's refund arrives: it is claimed, then waits for the paid run's lease. */
async function refundWaitingOnPaid(store: DedupeStore, book: PaymentBook | undefined) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let paidStarted!: () => void;
  const started = new Promise<void>((resolve) => (paidStarted = resolve));
  const ran: string[] = [];
  const processing: Processing = createProcessing({
    store,
    ...(book !== undefined && { book }),
    claimTtlMs: ttlMs,
    orderWaitMs: 2_000,
    deadlineMs: 60_000,
  }).on(['transaction_paid', 'transaction_refunded'], async (event) => {
    ran.push(event.name);
    if (event.name !== 'transaction_paid') return;
    paidStarted();
    await gate;
  });
  const paid = processing.accept(paidEvent('ch_wait'));
  await settled(started);
  const refund = refundedEvent('ch_wait');
  const waiting = processing.accept(refund);
  // The clock really passes the TTL: a claim taken now, and not held, has lapsed three TTLs later.
  const probe = memoryDedupeStore();
  probe.claim('probe', 'first', ttlMs);
  // Three claim TTLs: the waiting claim would have lapsed had nothing held it while it waited.
  await vi.advanceTimersByTimeAsync(ttlMs * 3);
  expect(probe.claim('probe', 'second', ttlMs)).toBe('claimed');
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
    // Refused while the paid run still holds the charge (a retry that claimed would wait and time out resource_busy).
    const retry: AcceptResult = await settled(processing.accept(refund));
    expect(retry).toMatchObject({ reason: 'in_flight' });
    release();

    expect(await settled(paid)).toEqual({ key: expect.any(String) });
    expect(await settled(waiting)).toEqual({ key: expect.any(String) });
    expect(await settled(processing.drain())).toBe(true);
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
    // Done now: a later retry is a duplicate.
    expect(await settled(processing.accept(refund))).toMatchObject({ reason: 'duplicate' });
  });
});

describe('a remote claim that cannot be renewed while its delivery waits for the order', () => {
  it('is never run: the delivery answers store_unavailable, its claim and ticket given back; the retry runs it once', async () => {
    let refundRenews = false;
    const refused: string[] = [];
    const store = remoteLike((key) => !key.includes('refund') || refundRenews, refused);
    const { processing, ran, paid, refund, waiting, release } = await refundWaitingOnPaid(store, undefined);
    // The fault happened: a renewal of the waiting refund's claim was refused during the wait.
    expect(refused.some((key) => key.includes('refund'))).toBe(true);
    release();
    expect(await settled(paid)).toEqual({ key: expect.any(String) });
    expect(await settled(waiting)).toMatchObject({ reason: 'store_unavailable', hint: expect.stringContaining('could not be renewed') });
    expect(ran).toEqual(['transaction_paid']);

    refundRenews = true;
    expect(await settled(processing.accept(refund))).toEqual({ key: expect.any(String) });
    expect(await settled(processing.drain())).toBe(true);
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
  });
});
