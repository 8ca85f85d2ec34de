// A waiter's ticket leaves the queue whichever way its wait ends: given up past orderWaitMs, or a store that fails.
import { describe, expect, it } from 'vitest';
import { createProcessing, memoryDedupeStore } from '../../src/index.js';
import { memoryOrderLeases } from '../../src/processing/memory-order-leases.js';
import { registerOrderLeases } from '../../src/shared/order-lease.js';
import { paidEvent } from './order-recorder.js';

function leasesThat(poll: (ask: unknown) => Promise<string | undefined>, withdraw: () => Promise<void>) {
  const store = memoryDedupeStore();
  const inner = memoryOrderLeases();
  const asks: unknown[] = [];
  const withdrawn: string[] = [];
  registerOrderLeases(store, {
    ...inner,
    take: (_resource, _owner, _ttl, ask) => {
      asks.push(ask);
      return poll(ask);
    },
    withdraw: async (_resource, owner) => {
      withdrawn.push(owner);
      await withdraw();
    },
  });
  return { store, asks, withdrawn };
}

describe('a waiter leaves the queue', () => {
  it('when a later ask fails: the delivery is answered store_unavailable and its ticket withdrawn (a failing withdraw is only left to lapse)', async () => {
    let asked = 0;
    const { store, asks, withdrawn } = leasesThat(
      () => (++asked <= 2 ? Promise.resolve(undefined) : Promise.reject(new Error('store down'))),
      () => Promise.reject(new Error('store down')),
    );
    const processing = createProcessing({ store, orderWaitMs: 60_000 }).on('transaction_paid', () => {});
    const result = await processing.accept(paidEvent('ch_fail'));
    expect(result).toMatchObject({ reason: 'store_unavailable', hint: expect.stringContaining('store down') });
    // The prefetch beside the claim queues nothing; every later ask carries a ticket.
    expect(asks[0]).toEqual({ key: expect.any(String) });
    expect(asks.slice(1).every((ask) => typeof (ask as { ticketTtlMs?: number }).ticketTtlMs === 'number')).toBe(true);
    expect(withdrawn).toHaveLength(1);
  });

  it('when it gives up past orderWaitMs: 503 resource_busy, its ticket withdrawn', async () => {
    const { store, withdrawn } = leasesThat(
      () => Promise.resolve(undefined),
      () => Promise.resolve(),
    );
    const processing = createProcessing({ store, orderWaitMs: 20 }).on('transaction_paid', () => {});
    expect(await processing.accept(paidEvent('ch_busy'))).toMatchObject({ reason: 'resource_busy' });
    expect(withdrawn).toHaveLength(1);
  });
});
