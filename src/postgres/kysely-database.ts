import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';

/** What pixhook uses of a Kysely instance, a transaction or a connection (`kysely` ≥ 0.27; 0.28 is the last for Node 20). */
export interface KyselyExecutorLike {
  executeQuery(query: never): Promise<{ rows: unknown[] }>;
}
export interface KyselyLike extends KyselyExecutorLike {
  transaction(): { setIsolationLevel(level: IsolationLevel): { execute(fn: (trx: never) => Promise<unknown>): Promise<unknown> } };
  connection(): { execute(fn: (connection: never) => Promise<unknown>): Promise<unknown> };
}

type Compile = (text: string, values: unknown[]) => unknown;
let compile: Promise<Compile> | undefined;
// Loaded on first use, so `pixhook/postgres` never requires kysely unless this adapter is used.
const compiler = () => (compile ??= import('kysely').then((k) => (text: string, values: unknown[]) => k.CompiledQuery.raw(text, values)));

function kyselyExecutor(executor: KyselyExecutorLike): SqlExecutor {
  return {
    async query(text, values) {
      const query = (await compiler())(text, values ?? []);
      return { rows: (await executor.executeQuery(query as never)).rows as SqlRow[] };
    },
  };
}

/** Adapts a Kysely instance (Postgres dialect): `db.transaction()` for handlers, `db.connection()` for the store's locks. */
export function fromKysely(db: KyselyLike): SqlDatabase {
  return {
    ...kyselyExecutor(db),
    async transaction<T>(isolation: IsolationLevel, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return (await db
        .transaction()
        .setIsolationLevel(isolation)
        .execute(((trx: KyselyExecutorLike) => fn(kyselyExecutor(trx))) as (trx: never) => Promise<unknown>)) as T;
    },
    async session<T>(fn: (connection: SqlExecutor, closed: Promise<void>) => Promise<T>): Promise<T> {
      return (await db.connection().execute((async (connection: KyselyExecutorLike) => {
        const executor = kyselyExecutor(connection);
        try {
          return await fn(executor, new Promise<void>(() => {}));
        } catch (error) {
          // Kysely hands the connection back to its pool: drop our locks first.
          await executor.query('SELECT pg_advisory_unlock_all()').catch(() => {});
          throw error;
        }
      }) as (connection: never) => Promise<unknown>)) as T;
    },
  };
}
