import { describe, expect, it } from 'vitest';
import { resolveRetry } from '../../src/shared/retry-options.js';

const defaults = { attempts: 5, backoff: { delayMs: 1_000, factor: 2, maxDelayMs: 60_000 } };

describe('resolveRetry: the one retry shape', () => {
  it('fills what is missing from the defaults: waits grow by the factor up to the cap', () => {
    const policy = resolveRetry('retry', undefined, defaults);
    expect(policy.attempts).toBe(5);
    expect([1, 2, 3, 4].map(policy.delayAfter)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(policy.totalDelayMs).toBe(15_000);
    const capped = resolveRetry('retry', { attempts: 10, backoff: { delayMs: 500, factor: 3, maxDelayMs: 5_000 } }, defaults);
    expect([1, 2, 3, 9].map(capped.delayAfter)).toEqual([500, 1_500, 4_500, 5_000]);
    expect([policy.maxDelayMs, capped.maxDelayMs]).toEqual([60_000, 5_000]);
  });

  it('takes an explicit schedule; past its end the last wait repeats', () => {
    const policy = resolveRetry('retry', { backoff: [10, 20, 30] }, defaults);
    expect(policy.attempts).toBe(4);
    expect([1, 2, 3].map(policy.delayAfter)).toEqual([10, 20, 30]);
    expect(policy.maxDelayMs).toBe(30);
    expect(resolveRetry('retry', { attempts: 6, backoff: [10, 20] }, defaults).delayAfter(5)).toBe(20);
  });

  it.each([
    [{ attempts: 0 }, /`retry.attempts` must be an integer from 1 to 100, got 0/],
    [{ attempts: 1e9 }, /`retry.attempts` must be an integer from 1 to 100, got 1000000000/],
    [{ backoff: { delayMs: 1e12 } }, /`retry.backoff.delayMs` must be an integer from 0 to 86400000/],
    [{ backoff: { factor: 0.5 } }, /`retry.backoff.factor` must be a number from 1 to 10, got 0.5/],
    [{ backoff: { delayMs: 5_000, maxDelayMs: 1_000 } }, /`retry.backoff.maxDelayMs` must be at least/],
    [{ backoff: [10, -1] }, /`retry.backoff\[1\]` must be an integer from 0/],
    [{ backoff: 'fast' }, /`retry.backoff` must be/],
    [[1, 2], /`retry` must be/],
    [{ attempts: 3, backoff: [] }, /must list at least one wait/],
  ])('refuses %j with a message naming the option', (value, message) => {
    expect(() => resolveRetry('retry', value as never, defaults)).toThrow(message);
  });
});
