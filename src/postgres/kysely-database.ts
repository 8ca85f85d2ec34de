import { isPgPool, toSqlDatabase, type PgPoolLike } from './pg-database.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';

/** What pixhook uses of a Kysely instance, a transaction or a connection (`kysely` ≥ 0.27; 0.28 is the last for Node 20). */
// Loose on purpose: Kysely's generic signatures are not assignable to narrower ones.
type AnyFunction = (...args: never[]) => unknown;
export interface KyselyExecutorLike {
  executeQuery: AnyFunction;
}
export interface KyselyLike extends KyselyExecutorLike {
  transaction: AnyFunction;
  connection: AnyFunction;
}
interface KyselyCalls {
  executeQuery(query: unknown): Promise<{ rows: unknown[] }>;
  transaction(): { setIsolationLevel(level: IsolationLevel): { execute<T>(fn: (trx: KyselyExecutorLike) => Promise<T>): Promise<T> } };
  connection(): { execute<T>(fn: (connection: KyselyExecutorLike) => Promise<T>): Promise<T> };
}
const calls = (db: KyselyExecutorLike) => db as unknown as KyselyCalls;

type Compile = (text: string, values: unknown[]) => unknown;
let compile: Promise<Compile> | undefined;
// Loaded on first use, so `pixhook/postgres` never requires kysely unless this adapter is used.
const compiler = () => (compile ??= import('kysely').then((k) => (text: string, values: unknown[]) => k.CompiledQuery.raw(text, values)));

function kyselyExecutor(executor: KyselyExecutorLike): SqlExecutor {
  return {
    async query(text, values) {
      const query = (await compiler())(text, values ?? []);
      return { rows: (await calls(executor).executeQuery(query)).rows as SqlRow[] };
    },
  };
}

/**
 * Adapts a Kysely instance (Postgres dialect): handlers run in `db.transaction()`. Pass the dialect's
 * `pg` Pool as well: the store then holds its lock connection through pg, with an error listener on
 * it (a checked-out pg client that loses its server emits `error`, which crashes a process without one).
 * Without it, `db.connection()` holds the lock connection.
 */
export function fromKysely(db: KyselyLike, pool?: PgPoolLike): SqlDatabase {
  const viaPg = pool !== undefined && isPgPool(pool) ? toSqlDatabase(pool) : undefined;
  return {
    ...kyselyExecutor(db),
    async transaction<T>(isolation: IsolationLevel, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return calls(db)
        .transaction()
        .setIsolationLevel(isolation)
        .execute((trx) => fn(kyselyExecutor(trx)));
    },
    async session<T>(fn: (connection: SqlExecutor, closed: Promise<void>) => Promise<T>): Promise<T> {
      if (viaPg) return viaPg.session(fn);
      return calls(db)
        .connection()
        .execute(async (connection) => {
          const executor = kyselyExecutor(connection);
          try {
            return await fn(executor, new Promise<void>(() => {}));
          } catch (error) {
            // Kysely hands the connection back to its pool: drop our locks first.
            await executor.query('SELECT pg_advisory_unlock_all()').catch(() => {});
            throw error;
          }
        });
    },
  };
}
