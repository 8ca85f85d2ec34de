// The fair-order sequencer itself (fair-order-harness.ts). The Postgres three-streams case stalled one delivery for
// storeTimeoutMs in about one run in three without a book: a give-back that came while the gate of the give-back
// before it was still closed (the fresh arrival that opens it had asked, but was not answered yet) replaced that
// gate, and the waiters parked at it were never let through. Their asks timed out (503) and their tickets, at the
// head of the queue, held every waiter behind them until the ticket TTL passed.
import { describe, expect, it } from 'vitest';
import { memoryDedupeStore } from '../../src/index.js';
import { orderLeasesOf } from '../../src/processing/resource-order.js';
import { registerOrderLeases, type OrderLeases, type Taken } from '../../src/shared/order-lease.js';
import { fairSequencer } from './fair-order-harness.js';

/** Leases whose answers the test gives: each take waits until `answer(owner, taken)`. */
function scriptedLeases() {
  const pending = new Map<string, (taken: Taken) => void>();
  const asks: string[] = [];
  const leases: OrderLeases = {
    take: (_resource, owner) =>
      new Promise<Taken>((resolve) => {
        asks.push(owner);
        pending.set(owner, resolve);
      }),
    withdraw: async () => undefined,
    extend: async () => true,
    give: async () => true,
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    leases,
    asks,
    /** Answers `owner`'s pending take, once it reached the store. */
    async answer(owner: string, taken: Taken): Promise<void> {
      for (let turns = 0; !pending.has(owner); turns++) {
        if (turns === 50) throw new Error(`${owner} never asked the store`);
        await settle();
      }
      const resolve = pending.get(owner)!;
      pending.delete(owner);
      resolve(taken);
      await settle();
    },
    settle,
  };
}

describe('fairSequencer (fresh adversary)', () => {
  it('a give-back while the last gate waits for its fresh arrival keeps the waiters parked at that gate', async () => {
    const store = memoryDedupeStore();
    const scripted = scriptedLeases();
    registerOrderLeases(store, scripted.leases);
    const sequencer = fairSequencer('fresh');
    sequencer.watch(store);
    const leases = orderLeasesOf(store);
    const ask = { ticketTtlMs: 1_000 };

    // `a` and `b` hold leases (of two charges: the sequencer only counts grants); `w` waits.
    const a = await sequencer.send('a', () => Promise.resolve(leases.take('t:1', 'A', 100)));
    await scripted.answer('A', '1:A');
    const b = await sequencer.send('b', () => Promise.resolve(leases.take('t:2', 'B', 100)));
    await scripted.answer('B', '1:B');
    const w = await sequencer.send('w', () => Promise.resolve(leases.take('t:1', 'W', 100, ask)));
    await scripted.answer('W', undefined);
    expect(await a.answer).toBe('1:A');
    expect(await b.answer).toBe('1:B');
    expect(await w.answer).toBeUndefined();

    // `a` gives back: the gate closes until a fresh arrival asks. `w` asks again and is parked at the gate.
    await leases.give('t:1', '1:A');
    const again = Promise.resolve(leases.take('t:1', 'W', 100, ask));
    await scripted.settle();
    // The fresh arrival asks; while its answer is on its way, `b` gives back (a second gate).
    const fresh = await sequencer.send('f', () => Promise.resolve(leases.take('t:1', 'F', 100)));
    await scripted.settle();
    await leases.give('t:2', '1:B');
    expect(sequencer.asked).toEqual(['a', 'b', 'w', 'f']);
    // The fresh arrival is answered: the gate opens, and `w` asks the store again.
    await scripted.answer('F', undefined);
    expect(await fresh.answer).toBeUndefined();
    await scripted.answer('W', '2:W');
    expect(await again).toBe('2:W');
    expect(sequencer.asked).toEqual(['a', 'b', 'w', 'f', 'w']);
    expect(sequencer.grants).toEqual(['a', 'b', 'w']);
  });
});
