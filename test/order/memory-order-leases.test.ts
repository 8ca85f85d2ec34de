// The in-process order leases: one holder per resource, fenced, lapsing after their TTL, and counters
// that keep ordering queued jobs across leases given back.
import { describe, expect, it } from 'vitest';
import { memoryOrderLeases } from '../../src/processing/memory-order-leases.js';

describe('memoryOrderLeases', () => {
  it('gives a resource to one holder at a time; only its fence extends or gives it back', () => {
    let clock = 1_000;
    const leases = memoryOrderLeases(60_000, () => clock);
    const a = leases.take('charge:1', 'a', 100) as string;
    expect(a).toBe('1:a');
    expect(leases.take('charge:1', 'b', 100)).toBeUndefined();
    expect(leases.take('charge:2', 'b', 100)).toBe('1:b');
    expect(leases.extend('charge:1', '1:b', 100)).toBe(false);
    expect(leases.give('charge:1', '1:b')).toBe(false);
    clock += 90;
    expect(leases.extend('charge:1', a, 100)).toBe(true);
    clock += 90;
    expect(leases.take('charge:1', 'b', 100)).toBeUndefined();
    expect(leases.give('charge:1', a)).toBe(true);
    expect(leases.give('charge:1', a)).toBe(false);
    expect(leases.take('charge:1', 'b', 100)).toBe('1:b');
  });

  it('a lapsed lease can be taken by another, and its old fence no longer extends or gives it back', () => {
    let clock = 0;
    const leases = memoryOrderLeases(60_000, () => clock);
    const a = leases.take('charge:1', 'a', 100) as string;
    clock += 100;
    expect(leases.extend('charge:1', a, 100)).toBe(false);
    const b = leases.take('charge:1', 'b', 100) as string;
    expect(b).toBe('2:b');
    expect(leases.give('charge:1', a)).toBe(false);
    expect(leases.take('charge:1', 'c', 100)).toBeUndefined();
    expect(leases.give('charge:1', b)).toBe(true);
  });

  it('keeps counting while jobs are queued, so queued jobs run in the order of their fences', async () => {
    const leases = memoryOrderLeases(60_000, () => 0);
    const first = leases.take('charge:1', 'a', 100) as string;
    await leases.queued('charge:1', first, 'k1');
    expect(leases.give('charge:1', first)).toBe(true);
    const second = leases.take('charge:1', 'b', 100) as string;
    expect(second).toBe('2:b');
    await leases.queued('charge:1', second, 'k2');
    expect(leases.give('charge:1', second)).toBe(true);
    expect(await leases.aheadOf('charge:1', 'k2')).toBe('k1');
    expect(await leases.aheadOf('charge:1', 'k1')).toBeUndefined();
    await leases.settled('charge:1', 'k1');
    expect(await leases.aheadOf('charge:1', 'k2')).toBeUndefined();
    await leases.settled('charge:1', 'k2');
    // Nothing queued and nothing held: the counter starts again.
    const third = leases.take('charge:1', 'c', 100) as string;
    expect(leases.give('charge:1', third)).toBe(true);
    expect(leases.take('charge:1', 'd', 100)).toBe('1:d');
  });
});
