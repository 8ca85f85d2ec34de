// A payment book transaction kept open for a run that never ends it (src/postgres/shared-transactions.ts) is
// committed after `maxOpenMs`, with a warning: one timer sweeps them all, oldest first, on a fake database.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sharedTransactions } from '../../src/postgres/shared-transactions.js';
import type { SqlDatabase, SqlExecutor } from '../../src/postgres/sql-database.js';

/** A database whose transactions record how they ended. */
function fakeDatabase(ended: string[]): SqlDatabase {
  const tx: SqlExecutor = { query: async () => ({ rows: [] }) };
  return {
    query: async () => ({ rows: [] }),
    async transaction(_isolation, fn) {
      try {
        const value = await fn(tx);
        ended.push(`commit ${String(value)}`);
        return value;
      } catch (error) {
        ended.push('rollback');
        throw error;
      }
    },
    session: async (fn) => fn(tx, new Promise(() => {})),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

/** Kept transactions open at most 1 s on a fake database; `keep(key, value)` opens one kept for `key`. */
function setup() {
  vi.useFakeTimers();
  const ended: string[] = [];
  const late: string[] = [];
  const shared = sharedTransactions(1_000, (key) => late.push(key));
  const db = fakeDatabase(ended);
  const keep = (key: string, value = key) =>
    shared.open(
      key,
      db,
      'read committed',
      { text: 'SELECT 1', values: [] },
      async () => ({ value, keep: true }),
      async () => {},
    );
  return { ended, late, shared, keep };
}

describe('book transactions kept open past their limit', () => {
  it('each is committed once it has been open maxOpenMs, oldest first, one warning each; those ended in time are not', async () => {
    const { ended, late, shared, keep } = setup();
    expect(await keep('a')).toBe('a');
    await vi.advanceTimersByTimeAsync(400);
    expect(await keep('b')).toBe('b');
    expect(await keep('c')).toBe('c');
    // Ended by its run in time: committed then, never swept.
    expect(await shared.settle('c', true)).toBe(true);
    expect(ended).toEqual(['commit c']);
    await vi.advanceTimersByTimeAsync(650);
    // `a` is past its limit; `b` (open 650 ms) is not yet.
    expect(late).toEqual(['a']);
    expect(ended).toEqual(['commit c', 'commit a']);
    expect(shared.take('a')).toBeUndefined();
    expect(shared.take('b')).toBeDefined();
    await vi.advanceTimersByTimeAsync(400);
    expect(late).toEqual(['a', 'b']);
    expect(ended).toEqual(['commit c', 'commit a', 'commit b']);
    // Opened again after the map emptied: a new sweep is armed for it.
    expect(await keep('d')).toBe('d');
    await vi.advanceTimersByTimeAsync(1_001);
    expect(late).toEqual(['a', 'b', 'd']);
    expect(await shared.settle('d', true)).toBe(false);
  });

  it('a key opened again moves to the end: the entries after its old place are swept in their time', async () => {
    const { ended, late, keep } = setup();
    await keep('a', 'a1');
    await vi.advanceTimersByTimeAsync(100);
    await keep('b', 'b');
    await vi.advanceTimersByTimeAsync(100);
    // `a` again while its first transaction is still open (the first stays open until swept: it is no longer listed).
    await keep('a', 'a2');
    // `b` is due at 1 100 ms, `a` (again) at 1 200 ms: at 1 150 ms only `b` went (in its old place, `a` would have held it back).
    await vi.advanceTimersByTimeAsync(950);
    expect(late).toEqual(['b']);
    await vi.advanceTimersByTimeAsync(100);
    expect(late).toEqual(['b', 'a']);
    expect(ended).toEqual(['commit b', 'commit a2']);
  });
});
