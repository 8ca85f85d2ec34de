import { describe, expect, it } from 'vitest';
import { memoryDedupeStore } from '../../src/dedupe/memory-dedupe-store.js';

describe('memoryDedupeStore', () => {
  it('claims once, reports in flight, done after complete, free after release', async () => {
    const store = memoryDedupeStore();
    expect(await store.claim('k', 1000)).toBe('claimed');
    expect(await store.claim('k', 1000)).toBe('in_flight');
    await store.release('k');
    expect(await store.claim('k', 1000)).toBe('claimed');
    await store.complete('k', 1000);
    expect(await store.claim('k', 1000)).toBe('done');
  });

  it('lets a claim and a completed key expire after their TTLs', async () => {
    const store = memoryDedupeStore();
    await store.claim('a', 20);
    await store.claim('b', 1000);
    await store.complete('b', 20);
    await new Promise((r) => setTimeout(r, 40));
    expect(await store.claim('a', 1000)).toBe('claimed');
    expect(await store.claim('b', 1000)).toBe('claimed');
  });

  it('stays bounded by max, evicting the least recently used keys', async () => {
    const store = memoryDedupeStore({ max: 100 });
    for (let i = 0; i < 1000; i++) await store.complete(`key-${i}`, 60_000);
    expect(store.size).toBe(100);
    expect(await store.claim('key-999', 1000)).toBe('done');
    expect(await store.claim('key-0', 1000)).toBe('claimed');
  });
});
