// The in-process order leases: one holder per resource, fenced, lapsing after their TTL, and a counter
// that never gives one fence twice.
import { describe, expect, it } from 'vitest';
import { memoryOrderLeases } from '../../src/processing/memory-order-leases.js';

describe('memoryOrderLeases', () => {
  it('gives a resource to one holder at a time; only its fence extends or gives it back', () => {
    let clock = 1_000;
    const leases = memoryOrderLeases(() => clock);
    const a = leases.take('charge:1', 'a', 100) as string;
    expect(a).toBe('1:a');
    expect(leases.take('charge:1', 'b', 100)).toBeUndefined();
    expect(leases.take('charge:2', 'b', 100)).toBe('2:b');
    expect(leases.extend('charge:1', '1:b', 100)).toBe(false);
    expect(leases.give('charge:1', '1:b')).toBe(false);
    clock += 90;
    expect(leases.extend('charge:1', a, 100)).toBe(true);
    clock += 90;
    expect(leases.take('charge:1', 'b', 100)).toBeUndefined();
    expect(leases.give('charge:1', a)).toBe(true);
    expect(leases.give('charge:1', a)).toBe(false);
    expect(leases.take('charge:1', 'b', 100)).toBe('3:b');
  });

  it('a lapsed lease can be taken by another, and its old fence no longer extends or gives it back', () => {
    let clock = 0;
    const leases = memoryOrderLeases(() => clock);
    const a = leases.take('charge:1', 'a', 100) as string;
    clock += 100;
    expect(leases.extend('charge:1', a, 100)).toBe(false);
    const b = leases.take('charge:1', 'b', 100) as string;
    expect(b).toBe('2:b');
    expect(leases.give('charge:1', a)).toBe(false);
    expect(leases.take('charge:1', 'c', 100)).toBeUndefined();
    expect(leases.give('charge:1', b)).toBe(true);
  });

  it('never gives one fence twice: the counter runs on after a given-back lease is gone, across resources', () => {
    const leases = memoryOrderLeases(() => 0);
    const first = leases.take('charge:1', 'a', 100) as string;
    expect(leases.give('charge:1', first)).toBe(true);
    // The same owner again (a run's owner is unique, but a fence must not lean on that).
    const second = leases.take('charge:1', 'a', 100) as string;
    expect(second).toBe('2:a');
    expect(leases.give('charge:1', first)).toBe(false);
    expect(leases.extend('charge:1', first, 100)).toBe(false);
    expect(leases.take('charge:2', 'b', 100)).toBe('3:b');
    expect(leases.give('charge:1', second)).toBe(true);
  });
});
