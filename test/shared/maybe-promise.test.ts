import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { andThen, isPromise } from '../../src/shared/maybe-promise.js';

describe('andThen', () => {
  it('stays synchronous for a value, handing the context to the step', () => {
    const seen: unknown[] = [];
    const result = andThen(2, (value, context: string) => (seen.push(context), value * 10), undefined, 'ctx');
    expect(result).toBe(20);
    expect(seen).toEqual(['ctx']);
  });

  it('waits for a promise and a thenable, and hands a rejection to onError with the context', async () => {
    await expect(andThen(Promise.resolve(2), (value) => value + 1)).resolves.toBe(3);
    const thenable = { then: (resolve: (value: number) => void) => resolve(5) } as unknown as PromiseLike<number>;
    expect(isPromise(thenable)).toBe(true);
    await expect(andThen(thenable as unknown as Promise<number>, (value) => value * 2)).resolves.toBe(10);
    const failed = andThen(
      Promise.reject(new Error('boom')),
      () => 'value',
      (error, context: number) => `${(error as Error).message}:${context}`,
      7,
    );
    await expect(failed).resolves.toBe('boom:7');
  });

  it('is the one place that tells a promise: no instanceof Promise branch elsewhere in src/ or adapters/', () => {
    let found = '';
    try {
      found = execFileSync('grep', ['-rn', 'instanceof Promise', 'src', 'adapters'], {
        cwd: new URL('../..', import.meta.url),
        encoding: 'utf8',
      });
    } catch {
      found = '';
    }
    const elsewhere = found.split('\n').filter((line) => line !== '' && !line.startsWith('src/shared/maybe-promise.ts:'));
    expect(elsewhere).toEqual([]);
  });
});
