import { describe, expect, it } from 'vitest';
import { memoryDedupeStore } from '../../src/index.js';
import { runStoreConformance } from './store-conformance.js';

describe('memoryDedupeStore', () => {
  runStoreConformance(() => memoryDedupeStore());

  it('answers synchronously (no promise: a tick saved per call on the hot path)', () => {
    const store = memoryDedupeStore();
    expect(store.claim('k', 'o', 1000)).toBe('claimed');
    expect(store.extend('k', 'o', 1000)).toBe(true);
    expect(store.complete('k', 'o', 1000)).toBe(true);
  });

  it('stays bounded by max, evicting the least recently used keys', () => {
    const store = memoryDedupeStore({ max: 100 });
    for (let i = 0; i < 1000; i++) store.complete(`key-${i}`, 'o', 60_000);
    expect(store.size).toBe(100);
    expect(store.claim('key-999', 'o', 1000)).toBe('done');
    expect(store.claim('key-0', 'o', 1000)).toBe('claimed');
  });
});
