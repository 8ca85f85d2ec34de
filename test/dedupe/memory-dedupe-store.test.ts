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

  it('stays bounded (at most 2 × max held) and always remembers the newest max keys', () => {
    const store = memoryDedupeStore({ max: 100 });
    for (let i = 0; i < 1000; i++) {
      store.complete(`key-${i}`, 'o', 60_000);
      expect(store.size).toBeLessThanOrEqual(200);
    }
    // The newest 100, wherever the generation boundary fell, are all still done.
    for (let i = 900; i < 1000; i++) expect(store.claim(`key-${i}`, 'o', 1000)).toBe('done');
    expect(store.claim('key-0', 'o', 1000)).toBe('claimed');
  });

  it('keeps a claim that is renewed while newer keys push its generation out', () => {
    const store = memoryDedupeStore({ max: 10 });
    expect(store.claim('held', 'a', 60_000)).toBe('claimed');
    for (let i = 0; i < 25; i++) {
      store.complete(`filler-${i}`, 'o', 60_000);
      if (i % 5 === 0) expect(store.extend('held', 'a', 60_000)).toBe(true);
    }
    expect(store.claim('held', 'b', 60_000)).toBe('in_flight');
    expect(store.complete('held', 'a', 60_000)).toBe(true);
    expect(store.claim('held', 'b', 60_000)).toBe('done');
  });

  it('a released claim does not bring back an older entry of the same key from the old generation', () => {
    const store = memoryDedupeStore({ max: 2 });
    expect(store.claim('k', 'a', 60_000)).toBe('claimed');
    store.complete('x', 'o', 60_000); // young: k, x → full
    store.complete('y', 'o', 60_000); // k and x age into the old generation
    expect(store.extend('k', 'a', 60_000)).toBe(true); // k's claim now also in the young one
    store.release('k', 'a');
    expect(store.claim('k', 'b', 60_000)).toBe('claimed');
  });

  it('reads an expired entry as absent, by the monotonic clock', async () => {
    const store = memoryDedupeStore();
    expect(store.claim('k', 'a', 20)).toBe('claimed');
    expect(store.claim('k', 'b', 20)).toBe('in_flight');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(store.claim('k', 'b', 20)).toBe('claimed');
    expect(store.complete('k', 'a', 1000)).toBe(false);
  });

  it('a pinned claim (its run lives in this process) lapses neither by the clock nor with its generation', async () => {
    const store = memoryDedupeStore({ max: 2 });
    expect(store.claim('k', 'a', 20)).toBe('claimed');
    expect(store.pin('k', 'b')).toBe(false); // another owner's claim is not pinned
    expect(store.pin('k', 'a')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 40));
    for (let i = 0; i < 6; i++) store.complete(`filler-${i}`, 'o', 60_000);
    expect(store.claim('k', 'b', 20)).toBe('in_flight');
    expect(store.extend('k', 'b', 20)).toBe(false);
    expect(store.complete('k', 'b', 1000)).toBe(false);
    // Its completion ends the pin: the done mark answers, by its own TTL.
    expect(store.complete('k', 'a', 20)).toBe(true);
    expect(store.claim('k', 'b', 20)).toBe('done');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(store.claim('k', 'b', 20)).toBe('claimed');
    expect(store.pin('gone', 'a')).toBe(false);
  });

  it('a released pinned claim is gone: the retry claims it', () => {
    const store = memoryDedupeStore();
    expect(store.claim('k', 'a', 60_000)).toBe('claimed');
    expect(store.pin('k', 'a')).toBe(true);
    store.release('k', 'b'); // not its owner: still pinned
    expect(store.claim('k', 'b', 60_000)).toBe('in_flight');
    store.release('k', 'a');
    expect(store.claim('k', 'b', 60_000)).toBe('claimed');
    expect(store.complete('k', 'b', 60_000)).toBe(true);
    expect(store.pin('k', 'b')).toBe(false); // a done key is not a claim
  });
});
