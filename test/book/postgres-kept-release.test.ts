// A kept book transaction on a pg Pool (pg-database.ts `beginKept`/`endKept`) whose COMMIT or ROLLBACK fails may
// leave its session inside a transaction: that connection must not go back to the pool for the next delivery.
import { describe, expect, it } from 'vitest';
import { beginKept, endKept, toSqlDatabase, type PgPoolLike } from '../../src/postgres/pg-database.js';

/** A pool of one fake connection whose statements named in `failing` reject; it records how it was released. */
function fakePool(failing: ReadonlySet<string>) {
  const released: (boolean | Error | undefined)[] = [];
  const sent: string[] = [];
  const client = {
    async query(text: string | { text: string }) {
      const sql = typeof text === 'string' ? text : text.text;
      sent.push(sql);
      if (failing.has(sql) || (failing.has('carried') && sql.startsWith('UPDATE carried')))
        throw new Error(`${sql}: the connection failed`);
      return { rows: [] };
    },
    on() {},
    removeListener() {},
    release(destroy?: boolean | Error) {
      released.push(destroy);
    },
  };
  const pool = { connect: async () => client, query: client.query, totalCount: 1 } as unknown as PgPoolLike;
  return { db: toSqlDatabase(pool), released, sent };
}

const first = { text: 'SELECT 1', values: [] };

describe("the book's kept transaction on a pg Pool gives back only a connection it ended", () => {
  it('ended by a ROLLBACK that succeeded, or a COMMIT: given back', async () => {
    const pool = fakePool(new Set());
    await endKept((await beginKept(pool.db, 'read committed', first))!, false);
    await endKept((await beginKept(pool.db, 'read committed', first))!, true);
    expect(pool.sent.filter((sql) => sql === 'ROLLBACK' || sql === 'COMMIT')).toEqual(['ROLLBACK', 'COMMIT']);
    expect(pool.released).toEqual([false, false]);
  });

  it('a ROLLBACK that fails does not reject (the handlers’ outcome stands) and the connection is destroyed', async () => {
    const pool = fakePool(new Set(['ROLLBACK']));
    const kept = (await beginKept(pool.db, 'read committed', first))!;
    await expect(endKept(kept, false)).resolves.toBeUndefined();
    expect(pool.sent.at(-1)).toBe('ROLLBACK');
    expect(pool.released).toEqual([true]);
  });

  it('a COMMIT that fails rejects; its session answering the ROLLBACK after it, the connection is given back', async () => {
    const pool = fakePool(new Set(['COMMIT']));
    const kept = (await beginKept(pool.db, 'read committed', first))!;
    await expect(endKept(kept, true)).rejects.toThrow(/COMMIT: the connection failed/);
    expect(pool.sent.at(-1)).toBe('ROLLBACK');
    expect(pool.sent.filter((sql) => sql === 'ROLLBACK')).toHaveLength(1); // rolled back once, not twice
    expect(pool.released).toEqual([false]);
  });

  it('a statement carried with the COMMIT that fails (a lost claim): rolled back once, the connection given back', async () => {
    const pool = fakePool(new Set(['carried']));
    const kept = (await beginKept(pool.db, 'read committed', first))!;
    await expect(endKept(kept, true, [{ text: 'UPDATE carried SET n = 1', values: [] }])).rejects.toThrow(/the connection failed/);
    expect(pool.sent.at(-1)).toBe('ROLLBACK');
    expect(pool.sent.filter((sql) => sql === 'ROLLBACK')).toHaveLength(1);
    expect(pool.released).toEqual([false]);
  });

  it('a COMMIT that fails on a session that cannot roll back either rejects, and the connection is destroyed', async () => {
    const pool = fakePool(new Set(['COMMIT', 'ROLLBACK']));
    const kept = (await beginKept(pool.db, 'read committed', first))!;
    await expect(endKept(kept, true)).rejects.toThrow(/COMMIT: the connection failed/);
    expect(pool.released).toEqual([true]);
  });
});
