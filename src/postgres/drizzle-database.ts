import { PixhookConfigError } from '../index.js';
import { isPgPool, toSqlDatabase, type PgPoolLike } from './pg-database.js';
import { fromPostgresJs, type PostgresJsSqlLike } from './postgres-js-database.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';

/** What pixhook uses of a Drizzle database or transaction (`drizzle-orm` node-postgres or postgres-js). */
export interface DrizzleExecutorLike {
  execute(query: never): PromiseLike<unknown>;
}
export interface DrizzleLike extends DrizzleExecutorLike {
  transaction(fn: (tx: never) => Promise<unknown>, config?: { isolationLevel?: IsolationLevel }): Promise<unknown>;
  /** The driver client Drizzle was made with: a pg Pool or a postgres.js instance. */
  readonly $client: unknown;
}

type Build = (text: string, values: unknown[]) => unknown;
let build: Promise<Build> | undefined;
// `$1` placeholders become Drizzle params; loaded on first use so pixhook never requires drizzle-orm otherwise.
const builder = () =>
  (build ??= import('drizzle-orm').then(({ sql }) => (text: string, values: unknown[]) => {
    const parts = text.split(/\$(\d+)/);
    const chunks = parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql.param(values[Number(part) - 1])));
    return sql.join(chunks);
  }));

function drizzleExecutor(db: DrizzleExecutorLike): SqlExecutor {
  return {
    async query(text, values) {
      const result = (await db.execute((await builder())(text, values ?? []) as never)) as { rows?: SqlRow[] } | SqlRow[];
      return { rows: Array.isArray(result) ? [...result] : (result.rows ?? []) };
    },
  };
}

/** Adapts a Drizzle database: handlers run in `db.transaction()`, the store's lock connection comes from `db.$client`. */
export function fromDrizzle(db: DrizzleLike): SqlDatabase {
  const client = db.$client;
  let driver: SqlDatabase;
  if (isPgPool(client)) driver = toSqlDatabase(client as PgPoolLike);
  else if (typeof (client as PostgresJsSqlLike)?.reserve === 'function') driver = fromPostgresJs(client as PostgresJsSqlLike);
  else throw new PixhookConfigError('pixhook/postgres: fromDrizzle needs a Drizzle database made from a pg Pool or a postgres.js instance.');
  return {
    ...drizzleExecutor(db),
    async transaction<T>(isolation: IsolationLevel, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return (await db.transaction(((tx: DrizzleExecutorLike) => fn(drizzleExecutor(tx))) as (tx: never) => Promise<unknown>, { isolationLevel: isolation })) as T;
    },
    session: (fn) => driver.session(fn),
  };
}
