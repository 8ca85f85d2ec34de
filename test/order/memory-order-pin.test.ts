// The in-process order lease is pinned while the run holding it lives, as the memory store pins its claims: a
// handler that runs past the lease's TTL (or an event loop stalled past it, so no renewal fires in time) never lets
// another event of the charge be judged in between. The leases' clock is the test's: no timing luck.
import { describe, expect, it } from 'vitest';
import { createProcessing, memoryDedupeStore, memoryPaymentBook } from '../../src/index.js';
import { memoryOrderLeases } from '../../src/processing/memory-order-leases.js';
import { registerOrderLeases } from '../../src/shared/order-lease.js';
import { paidEvent, refundedEvent } from './order-recorder.js';

describe('memoryOrderLeases.pin', () => {
  it('a pinned lease outlives any clock until given back; only its own live fence pins it', () => {
    let clock = 0;
    const leases = memoryOrderLeases(() => clock);
    const a = leases.take('t:c', 'a', 100) as string;
    expect(leases.pin!('t:c', '0:other')).toBe(false);
    expect(leases.pin!('t:c', a)).toBe(true);
    clock += 1_000_000;
    expect(leases.take('t:c', 'b', 100)).toBeUndefined();
    // A renewal does not shorten it back to a TTL.
    expect(leases.extend('t:c', a, 100)).toBe(true);
    clock += 1_000_000;
    expect(leases.take('t:c', 'b', 100)).toBeUndefined();
    expect(leases.give('t:c', a)).toBe(true);
    const b = leases.take('t:c', 'b', 100) as string;
    expect(b).toBe('2:b');
    clock += 100;
    // Lapsed before it was pinned: the run must not go on.
    expect(leases.pin!('t:c', b)).toBe(false);
  });
});

describe.each([
  ['without a book', false],
  ['with a memory book', true],
])('an inline run past the lease TTL (%s)', (_name, withBook) => {
  it('keeps its charge: another event of it is answered resource_busy, and runs after the first one finished', async () => {
    let clock = 0;
    const store = registerOrderLeases(
      memoryDedupeStore(),
      memoryOrderLeases(() => clock),
    );
    const book = withBook ? memoryPaymentBook() : undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const make = () =>
      createProcessing({ store, book, claimTtlMs: 1_000, orderWaitMs: 1, deadlineMs: 60_000 }).on(
        ['transaction_paid', 'transaction_refunded'],
        async (event) => {
          ran.push(event.name);
          if (event.name === 'transaction_paid') await gate;
        },
      );
    const [a, b] = [make(), make()];
    const paid = a.accept(paidEvent('ch_pinned'));
    expect(ran).toEqual(['transaction_paid']);
    // Far past the lease's TTL, at once: no renewal could have kept a lease that lapses by the clock.
    clock += 60 * 60_000;
    expect(await b.accept(refundedEvent('ch_pinned'))).toMatchObject({ reason: 'resource_busy' });
    expect(ran).toEqual(['transaction_paid']);
    release();
    expect(await paid).toEqual({ key: expect.any(String) });
    expect(await b.accept(refundedEvent('ch_pinned'))).toEqual({ key: expect.any(String) });
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
  });
});
