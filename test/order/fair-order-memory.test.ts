// Issue 36 §5 "Fair order", in process: waiters for one charge are served in arrival order.
import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupeStore, memoryPaymentBook, type Receiver } from '../../src/index.js';
import { memoryOrderLeases } from '../../src/processing/memory-order-leases.js';
import { expectServedInArrivalOrder, fairSecret, fairSequencer, threeStreamsAndPaid } from './fair-order-harness.js';

function instances(count: number, withBook: boolean) {
  const store = memoryDedupeStore();
  const book = withBook ? memoryPaymentBook() : undefined;
  const sequencer = fairSequencer('fresh');
  sequencer.watch(store);
  const receivers: Receiver[] = Array.from({ length: count }, () =>
    createReceiver({
      secret: fairSecret,
      store,
      ...(book && { book }),
      orderWaitMs: 60_000,
      deadlineMs: 60_000,
      handlerTimeoutMs: 60_000,
      storeTimeoutMs: 15_000,
    }),
  );
  return { receivers, sequencer };
}

describe('fair order on one in-process store', () => {
  it.each([false, true])(
    'three streams of signed transaction_updated and the genuine transaction_paid (book: %s): the paid waits only for the events ahead of it at arrival',
    async (withBook) => {
      const { receivers, sequencer } = instances(2, withBook);
      expectServedInArrivalOrder(await threeStreamsAndPaid(receivers, sequencer, 'ch_fair_mem'));
    },
  );
});

describe('memoryOrderLeases tickets', () => {
  it('serves waiters in arrival order: a later asker, or one that asks first after the give-back, waits its turn', () => {
    const leases = memoryOrderLeases(() => 0);
    const ticket = { ticketTtlMs: 1_000 };
    const holder = leases.take('t:c', 'h', 100) as string;
    expect(leases.take('t:c', 'a', 100, ticket)).toBeUndefined();
    expect(leases.take('t:c', 'b', 100, ticket)).toBeUndefined();
    expect(leases.give('t:c', holder)).toBe(true);
    // Free, but `a` waits first: `b`, a newcomer and a take without a ticket are all refused.
    expect(leases.take('t:c', 'b', 100, ticket)).toBeUndefined();
    expect(leases.take('t:c', 'c', 100, ticket)).toBeUndefined();
    expect(leases.take('t:c', 'd', 100)).toBeUndefined();
    const a = leases.take('t:c', 'a', 100, ticket) as string;
    expect(a).toMatch(/:a$/);
    leases.give('t:c', a);
    expect(leases.take('t:c', 'c', 100, ticket)).toBeUndefined();
    expect(leases.take('t:c', 'b', 100, ticket)).toMatch(/:b$/);
  });

  it("a waiter that is gone holds nobody up once its ticket's TTL has passed; a withdrawn ticket at once", () => {
    let clock = 0;
    const leases = memoryOrderLeases(() => clock);
    const holder = leases.take('t:c', 'h', 10_000) as string;
    expect(leases.take('t:c', 'dead', 10_000, { ticketTtlMs: 100 })).toBeUndefined();
    expect(leases.take('t:c', 'quitter', 10_000, { ticketTtlMs: 1_000 })).toBeUndefined();
    expect(leases.take('t:c', 'live', 10_000, { ticketTtlMs: 1_000 })).toBeUndefined();
    leases.give('t:c', holder);
    expect(leases.take('t:c', 'live', 10_000, { ticketTtlMs: 1_000 })).toBeUndefined();
    clock += 100;
    leases.withdraw('t:c', 'quitter');
    expect(leases.take('t:c', 'live', 10_000, { ticketTtlMs: 1_000 })).toMatch(/:live$/);
  });
});
