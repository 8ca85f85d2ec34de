import { mustBe } from '../shared/option-checks.js';
import { isPgPool, toSqlDatabase, type PgPoolLike } from './pg-database.js';
import { fromPostgresJs, type PostgresJsSqlLike } from './postgres-js-database.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';

/** What pixhook uses of a Drizzle database or transaction (`drizzle-orm` node-postgres or postgres-js). */
// Loose on purpose: Drizzle's generic signatures are not assignable to narrower ones.
type AnyFunction = (...args: never[]) => unknown;
export interface DrizzleExecutorLike {
  execute: AnyFunction;
}
export interface DrizzleLike extends DrizzleExecutorLike {
  transaction: AnyFunction;
  /** The driver client Drizzle was made with: a pg Pool or a postgres.js instance. */
  readonly $client: unknown;
}
interface DrizzleCalls {
  execute(query: unknown): PromiseLike<unknown>;
  transaction<T>(fn: (tx: DrizzleExecutorLike) => Promise<T>, config?: { isolationLevel?: IsolationLevel }): Promise<T>;
}
const calls = (db: DrizzleExecutorLike) => db as unknown as DrizzleCalls;

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
      const result = (await calls(db).execute((await builder())(text, values ?? []))) as { rows?: SqlRow[] } | SqlRow[];
      return { rows: Array.isArray(result) ? [...result] : (result.rows ?? []) };
    },
  };
}

/** Adapts a Drizzle database: handlers run in `db.transaction()`, the store's lock connection comes from `db.$client`. */
export function fromDrizzle(db: DrizzleLike): SqlDatabase {
  const client = db.$client;
  let driver: SqlDatabase;
  if (isPgPool(client)) driver = toSqlDatabase(client as PgPoolLike);
  else if (typeof (client as PostgresJsSqlLike)?.begin === 'function' && typeof (client as PostgresJsSqlLike).unsafe === 'function')
    driver = fromPostgresJs(client as PostgresJsSqlLike);
  else throw mustBe('db.$client', 'a pg Pool or a postgres.js instance (fromDrizzle takes a Drizzle database made from one)', client);
  return {
    ...drizzleExecutor(db),
    async transaction<T>(isolation: IsolationLevel, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return calls(db).transaction((tx) => fn(drizzleExecutor(tx)), { isolationLevel: isolation });
    },
    session: (fn) => driver.session(fn),
  };
}
