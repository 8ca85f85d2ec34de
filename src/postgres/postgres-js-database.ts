import type { SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';

/** What pixhook uses of a postgres.js `sql` instance (or a transaction's `sql`). */
export interface PostgresJsLike {
  unsafe(text: string, values?: never[]): PromiseLike<readonly SqlRow[]>;
}
export interface PostgresJsReservedLike extends PostgresJsLike {
  release(): void;
}
export interface PostgresJsSqlLike extends PostgresJsLike {
  begin(options: string, fn: (sql: never) => unknown): PromiseLike<unknown>;
  reserve(): PromiseLike<PostgresJsReservedLike>;
}

export function postgresJsExecutor(sql: PostgresJsLike): SqlExecutor {
  return { query: async (text, values) => ({ rows: [...(await sql.unsafe(text, (values ?? []) as never[]))] }) };
}

/** Adapts a postgres.js (`postgres`) instance: transactions via `sql.begin`, the store's lock connection via `sql.reserve()`. */
export function fromPostgresJs(sql: PostgresJsSqlLike): SqlDatabase {
  return {
    ...postgresJsExecutor(sql),
    async transaction<T>(isolation: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return (await sql.begin(`isolation level ${isolation}`, ((tx: PostgresJsLike) => fn(postgresJsExecutor(tx))) as (sql: never) => unknown)) as T;
    },
    async session(fn) {
      const reserved = await sql.reserve();
      const connection = postgresJsExecutor(reserved);
      try {
        return await fn(connection, new Promise<void>(() => {}));
      } catch (error) {
        // postgres.js cannot destroy a reserved connection: drop our locks before it goes back to the pool.
        await connection.query('SELECT pg_advisory_unlock_all()').catch(() => {});
        throw error;
      } finally {
        reserved.release();
      }
    },
  };
}
