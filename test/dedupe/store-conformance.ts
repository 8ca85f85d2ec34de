import { expect, it } from 'vitest';
import type { DedupeStore } from '../../src/index.js';

/**
 * What every DedupeStore must do, run against each implementation. `fresh()` gives a store with no
 * keys; `pause(ms)` waits long enough for TTLs (real time: stores expire on their own clocks).
 */
export function runStoreConformance(fresh: () => DedupeStore | Promise<DedupeStore>): void {
  it('claims once, reports in flight, done after complete, free after release', async () => {
    const store = await fresh();
    expect(await store.claim('k', 'a', 60_000)).toBe('claimed');
    expect(await store.claim('k', 'b', 60_000)).toBe('in_flight');
    await store.release('k', 'a');
    expect(await store.claim('k', 'b', 60_000)).toBe('claimed');
    expect(await store.complete('k', 'b', 60_000)).toBe(true);
    expect(await store.claim('k', 'c', 60_000)).toBe('done');
  });

  it('release is owner-checked: a stale run never frees another run’s claim', async () => {
    const store = await fresh();
    expect(await store.claim('k', 'new', 60_000)).toBe('claimed');
    await store.release('k', 'stale');
    expect(await store.claim('k', 'other', 60_000)).toBe('in_flight');
  });

  it('a stale run that fails never deletes the done mark of a run that succeeded', async () => {
    const store = await fresh();
    expect(await store.claim('k', 'winner', 60_000)).toBe('claimed');
    expect(await store.complete('k', 'winner', 60_000)).toBe(true);
    await store.release('k', 'stale');
    expect(await store.claim('k', 'redelivery', 60_000)).toBe('done');
  });

  it('complete is owner-checked: false while another owner holds the claim', async () => {
    const store = await fresh();
    expect(await store.claim('k', 'holder', 60_000)).toBe('claimed');
    expect(await store.complete('k', 'stale', 60_000)).toBe(false);
    expect(await store.claim('k', 'x', 60_000)).toBe('in_flight');
    expect(await store.complete('k', 'holder', 60_000)).toBe(true);
    expect(await store.claim('k', 'x', 60_000)).toBe('done');
  });

  it('complete marks a key whose claim lapsed (the handler ran: that is a fact)', async () => {
    const store = await fresh();
    expect(await store.complete('never-claimed', 'o', 60_000)).toBe(true);
    expect(await store.claim('never-claimed', 'x', 60_000)).toBe('done');
  });

  it('extend renews only the owner’s claim and keeps it past its first TTL', async () => {
    const store = await fresh();
    expect(await store.claim('k', 'o', 300)).toBe('claimed');
    expect(await store.extend('k', 'someone-else', 60_000)).toBe(false);
    expect(await store.extend('k', 'o', 60_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 450));
    expect(await store.claim('k', 'x', 60_000)).toBe('in_flight');
    expect(await store.extend('gone', 'o', 60_000)).toBe(false);
  });

  it('lets an unrenewed claim and a completed key expire after their TTLs', async () => {
    const store = await fresh();
    expect(await store.claim('a', 'o', 150)).toBe('claimed');
    expect(await store.claim('b', 'o', 60_000)).toBe('claimed');
    expect(await store.complete('b', 'o', 150)).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(await store.claim('a', 'x', 60_000)).toBe('claimed');
    expect(await store.claim('b', 'x', 60_000)).toBe('claimed');
  });

  it('of many concurrent claims of one key, exactly one wins', async () => {
    const store = await fresh();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.claim('same', `o${i}`, 60_000)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(19);
  });
}
