/** One row of a result, as every Postgres client returns it: column name → value. */
export type SqlRow = Record<string, unknown>;

/**
 * Anything that runs one SQL statement with `$1…$n` parameters: a `pg` client, a transaction handle
 * from an adapter, or your own wrapper.
 */
export interface SqlExecutor {
  query(text: string, values?: unknown[]): Promise<{ rows: SqlRow[] }>;
}

/** The isolation levels a transactional handler may run at. pixhook's own statements are correct at all three. */
export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

/**
 * A database handle as the inbox needs it. `pg` Pools and Clients are turned into one for you;
 * `fromPostgresJs`, `fromKysely` and `fromDrizzle` adapt the others.
 */
export interface SqlDatabase extends SqlExecutor {
  /** Runs `fn` inside BEGIN … COMMIT on one connection; rolls back and rethrows when `fn` throws. */
  transaction<T>(isolation: IsolationLevel, fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Holds one connection, outside any transaction, for as long as `fn` runs: the dedupe store keeps its
   * session locks on it, so they end with the connection. When `fn` throws, the connection must not be
   * reused with locks still on it: destroy it, or return it only after `pg_advisory_unlock_all()`.
   */
  session<T>(fn: (connection: SqlExecutor, closed: Promise<void>) => Promise<T>): Promise<T>;
  /**
   * Optional: `transaction`, with `first` sent in the same round trip as BEGIN and its rows handed to
   * `fn`. The `pg` handles do it (one round trip less per event); without it, `first` runs as the
   * transaction's first query.
   */
  transactionWith?<T>(isolation: IsolationLevel, first: SqlStatement, fn: (tx: SqlExecutor, rows: SqlRow[]) => Promise<T>): Promise<T>;
}

/** A statement with `$1…$n` parameters. */
export interface SqlStatement {
  text: string;
  values: (string | number)[];
}
