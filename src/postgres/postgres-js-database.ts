import type { SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';

// Loose on purpose: postgres.js' own generic overloads are not assignable to a narrower signature.
type AnyFunction = (...args: never[]) => unknown;

/** What pixhook uses of a postgres.js `sql` instance (or a transaction's `sql`): `unsafe(text, values)`. */
export interface PostgresJsLike {
  unsafe: AnyFunction;
}
/** A postgres.js `sql` instance: `unsafe` and `begin(options, fn)`. */
export interface PostgresJsSqlLike extends PostgresJsLike {
  begin: AnyFunction;
}
interface PostgresJsCalls {
  unsafe(text: string, values: unknown[]): PromiseLike<readonly SqlRow[]>;
  begin(options: string, fn: (sql: PostgresJsLike) => unknown): PromiseLike<unknown>;
}
const calls = (sql: PostgresJsLike) => sql as unknown as PostgresJsCalls;

function postgresJsExecutor(sql: PostgresJsLike): SqlExecutor {
  return { query: async (text, values) => ({ rows: [...(await calls(sql).unsafe(text, values ?? []))] }) };
}

/** Adapts a postgres.js (`postgres`) instance: transactions via `sql.begin`, the store's lock connection via `sql.reserve()`. */
export function fromPostgresJs(sql: PostgresJsSqlLike): SqlDatabase {
  return {
    ...postgresJsExecutor(sql),
    async transaction<T>(isolation: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return (await calls(sql).begin(`isolation level ${isolation}`, (tx) => fn(postgresJsExecutor(tx)))) as T;
    },
    session<T>(fn: (connection: SqlExecutor, closed: Promise<void>) => Promise<T>): Promise<T> {
      // Pinned with sql.begin, not sql.reserve(): postgres.js 3.4 leaves a reserved connection whose server
      // went away hanging (and throws an uncaught TypeError), while begin() rejects at once when it closes.
      // Session locks do not end with this transaction; it only holds the connection.
      let markClosed!: () => void;
      let isClosed = false;
      const closed = new Promise<void>((resolve) => (markClosed = resolve)).then(() => void (isClosed = true));
      const held = calls(sql).begin('read only', async (tx) => {
        const connection = postgresJsExecutor(tx);
        // A long-held connection is idle in this transaction: the server's idle timeout must not end it.
        await connection.query("SELECT set_config('idle_in_transaction_session_timeout', '0', true)");
        const result = fn(connection, closed);
        // Once the connection is gone, never settle: postgres.js would write ROLLBACK/COMMIT to its
        // closed socket, which throws an uncaught TypeError (3.4.9).
        return new Promise<T>((resolve, reject) =>
          result.then(
            (value) => !isClosed && resolve(value),
            (error: unknown) => !isClosed && reject(error instanceof Error ? error : new Error(String(error))),
          ),
        );
      });
      return Promise.resolve(held).then(
        (result) => result as T,
        (error: unknown) => {
          markClosed();
          throw error;
        },
      );
    },
  };
}
