import { isPreparedMismatch, sendJoined, type InlineStatement, type ProvenCompanions } from './joined-statements.js';
import { mustBe } from '../shared/option-checks.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow, SqlStatement } from './sql-database.js';

// Structural types, so `pg` stays an optional peer dependency and its types are not needed to build.
interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: SqlRow[] }>;
}
interface PgEvents {
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeListener(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
}
/** What pixhook uses of `pg`'s `PoolClient`. */
export interface PgPoolClientLike extends PgQueryable, PgEvents {
  release(destroy?: boolean | Error): void;
}
/** What pixhook uses of `pg`'s `Pool`. */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgPoolClientLike>;
  readonly totalCount: number;
}
/** What pixhook uses of `pg`'s `Client` (connected). */
export type PgClientLike = PgQueryable & PgEvents;

export function isPgPool(value: unknown): value is PgPoolLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PgPoolLike).connect === 'function' &&
    typeof (value as PgPoolLike).totalCount === 'number'
  );
}

function isPgClient(value: unknown): value is PgClientLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PgClientLike).query === 'function' &&
    typeof (value as PgClientLike).on === 'function'
  );
}

/** `BEGIN ISOLATION LEVEL …`: one round trip, whatever `default_transaction_isolation` says. */
const beginStatements: Readonly<Record<IsolationLevel, string>> = {
  'read committed': 'BEGIN ISOLATION LEVEL READ COMMITTED',
  'repeatable read': 'BEGIN ISOLATION LEVEL REPEATABLE READ',
  serializable: 'BEGIN ISOLATION LEVEL SERIALIZABLE',
};
const beginStatement = (isolation: IsolationLevel): string => beginStatements[isolation];

// The handles built here on `pg`: their connections run several statements sent as one simple-protocol query.
const joinable = new WeakSet<SqlDatabase>();

/**
 * Several statements as one query text (one round trip; the rows of each come back in an array), when `db` is a
 * `pg` handle built here; `undefined` for any other `SqlDatabase` (its client may not take several statements).
 */
export function joinedStatements(db: SqlDatabase, tx: SqlExecutor, statements: readonly InlineStatement[]): Promise<unknown> | undefined {
  return joinable.has(db) ? sendJoined(tx as unknown as PgQueryable, statements) : undefined;
}

// Statements to send with a transaction's COMMIT, in the same query (a `pg` handle built here), keyed by its connection.
const carriedByCommit = new WeakMap<object, readonly InlineStatement[]>();

/**
 * Has `statements` sent with the COMMIT of `tx`'s transaction, as one query (one round trip for them and the
 * COMMIT), when `db` is a `pg` handle built here and `tx` its open transaction. `false`: not such a handle; run them.
 * A statement that fails there aborts the transaction: nothing commits, and the transaction's promise rejects.
 */
export function sendWithCommit(db: SqlDatabase, tx: SqlExecutor, statements: readonly InlineStatement[]): boolean {
  if (!joinable.has(db)) return false;
  carriedByCommit.set(tx, statements);
  return true;
}

/** The rows of the last statement of a joined query (`pg` answers one result, or an array of them). */
export function lastRows(result: unknown): SqlRow[] {
  const results = Array.isArray(result) ? (result as { rows: SqlRow[] }[]) : [result as { rows: SqlRow[] }];
  return results[results.length - 1]?.rows ?? [];
}

/** BEGIN, and the first statement in the same query: the first statement's rows, and its companions when it went prepared. */
interface Began {
  rows: SqlRow[];
  proven: ProvenCompanions | undefined;
}

const noRows: SqlRow[] = [];

/**
 * BEGIN and the first statement as one query: one round trip for both (again, inlined, when its prepared one did not
 * match). When it went prepared, its companions are proven (they may then go prepared with the COMMIT). A BEGIN or
 * first statement that fails is rolled back (the connection must not go back to the pool mid-transaction; a broken
 * connection cannot roll back, and does not need to: the server already did) and its error thrown.
 */
async function begin(client: PgQueryable, isolation: IsolationLevel, first: SqlStatement | undefined): Promise<Began> {
  const began: Began = { rows: noRows, proven: undefined };
  const head = beginStatement(isolation);
  try {
    if (first === undefined) await client.query(head);
    else {
      let result: unknown;
      try {
        result = await sendJoined(client, [first], { head, prepare: true, provenTo: began });
      } catch (error) {
        if (!isPreparedMismatch(error)) throw error;
        await client.query('ROLLBACK');
        result = await sendJoined(client, [first], { head });
      }
      began.rows = lastRows(result);
    }
  } catch (error) {
    await rolledBack(client);
    throw error;
  }
  return began;
}

/**
 * COMMIT, `carried` sent with it in the same query (the first statement's companions prepared when `proven`). A carried
 * statement that fails skips the rest of the query (the COMMIT) and leaves the transaction aborted: the caller rolls it
 * back (`rolledBack`), once.
 */
async function commit(
  client: PgQueryable,
  carried: readonly InlineStatement[] | undefined,
  proven: ProvenCompanions | undefined,
): Promise<void> {
  if (carried === undefined || carried.length === 0) await client.query('COMMIT');
  // The first statement's companions go prepared: it was found prepared on this server session in this transaction.
  else await sendJoined(client, carried, { tail: 'COMMIT', proven });
}

async function inTransaction<T>(
  client: PgQueryable,
  isolation: IsolationLevel,
  fn: (tx: SqlExecutor, rows: SqlRow[]) => Promise<T>,
  first?: SqlStatement,
): Promise<T> {
  const { rows, proven } = await begin(client, isolation, first);
  let result: T;
  try {
    result = await fn(client, rows);
  } catch (error) {
    carriedByCommit.delete(client);
    await rolledBack(client);
    throw error;
  }
  const carried = carriedByCommit.get(client);
  carriedByCommit.delete(client);
  try {
    await commit(client, carried, proven);
  } catch (error) {
    await rolledBack(client);
    throw error;
  }
  return result;
}

/**
 * A transaction on a pooled `pg` connection, begun by `beginKept` and left open for its caller, who ends it with
 * `endKept` (the payment book's transaction, kept open for the event's handlers: shared-transactions.ts). No callback
 * waits across the handlers: the connection, the first statement's rows and its proven companions are all it keeps.
 */
export interface KeptTransaction {
  readonly tx: SqlExecutor;
  readonly rows: SqlRow[];
}

class PooledTransaction implements KeptTransaction {
  constructor(
    readonly client: PgPoolClientLike,
    readonly state: { broken: boolean },
    readonly began: Began,
  ) {}
  get tx(): SqlExecutor {
    return this.client;
  }
  get rows(): SqlRow[] {
    return this.began.rows;
  }
}

const keepers = new WeakMap<SqlDatabase, PgPoolLike>();

/**
 * Begins a transaction on `db` (BEGIN with `first`, as `transactionWith`) and leaves it open: resolves once `first`
 * answered. `undefined` when `db` is not a `pg` Pool built here (use `transactionWith` then). A BEGIN or first
 * statement that fails was rolled back and its connection given back.
 */
export function beginKept(db: SqlDatabase, isolation: IsolationLevel, first: SqlStatement): Promise<KeptTransaction> | undefined {
  const pool = keepers.get(db);
  return pool === undefined ? undefined : beginPooled(pool, isolation, first);
}

async function beginPooled(pool: PgPoolLike, isolation: IsolationLevel, first: SqlStatement): Promise<KeptTransaction> {
  const client = await pool.connect();
  const state = connectionState(client);
  try {
    return new PooledTransaction(client, state, await begin(client, isolation, first));
  } catch (error) {
    client.release(state.broken);
    throw error;
  }
}

/**
 * Ends a transaction `beginKept` began: commits it with `carried` sent with the COMMIT in the same query (as
 * `sendWithCommit` has them sent), or rolls it back (never rejects then). The connection goes back to the pool
 * either way, destroyed when it ended or failed. A commit that fails rejects: nothing was committed (or, the
 * connection lost during the COMMIT itself, the outcome is unknown).
 */
export async function endKept(kept: KeptTransaction, commitIt: boolean, carried?: readonly InlineStatement[]): Promise<void> {
  const { client, state, began } = kept as PooledTransaction;
  // A failed COMMIT or ROLLBACK may leave the session inside a transaction: such a connection is not given back.
  let clean = true;
  try {
    if (commitIt) await commit(client, carried, began.proven);
    else clean = await rolledBack(client);
  } catch (error) {
    // A carried statement that failed (a lost claim) left the transaction aborted: clean once this rolls it back.
    clean = await rolledBack(client);
    throw error;
  } finally {
    client.release(state.broken || !clean);
  }
}

/** ROLLBACK, never rejecting: true when the server answered it (outside a transaction it only warns). */
function rolledBack(client: PgQueryable): Promise<boolean> {
  return client.query('ROLLBACK').then(
    () => true,
    () => false,
  );
}

/** Resolves when the connection reports an error or its end (the server went away, or we were cut off). */
function closedSignal(client: PgEvents): { closed: Promise<void>; detach: () => void } {
  let detach = () => {};
  const closed = new Promise<void>((resolve) => {
    // Without a listener, an error on a checked-out pg client is an uncaught exception: the process would crash.
    const onClose = () => resolve();
    client.on('error', onClose);
    client.on('end', onClose);
    detach = () => {
      client.removeListener('error', onClose);
      client.removeListener('end', onClose);
    };
  });
  return { closed, detach };
}

// The pooled connections whose end or error this module listens for: the listener stays on the connection for its
// life (one pair per connection, not one added and removed per transaction). It must be there while the connection is
// checked out: without a listener, an error on a checked-out pg client is an uncaught exception, the process would crash.
const brokenConnections = new WeakMap<PgPoolClientLike, { broken: boolean }>();
function connectionState(client: PgPoolClientLike): { broken: boolean } {
  let state = brokenConnections.get(client);
  if (state === undefined) {
    const known = { broken: false };
    const onClose = () => void (known.broken = true);
    client.on('error', onClose);
    client.on('end', onClose);
    brokenConnections.set(client, (state = known));
  }
  return state;
}

function fromPgPool(pool: PgPoolLike): SqlDatabase {
  async function inPooled<T>(
    isolation: IsolationLevel,
    fn: (tx: SqlExecutor, rows: SqlRow[]) => Promise<T>,
    first?: SqlStatement,
  ): Promise<T> {
    const client = await pool.connect();
    const state = connectionState(client);
    try {
      return await inTransaction(client, isolation, fn, first);
    } finally {
      // A connection that ended or failed is not handed back to the pool for another transaction.
      client.release(state.broken);
    }
  }
  const db: SqlDatabase = {
    query: (text, values) => pool.query(text, values),
    transaction: (isolation, fn) => inPooled(isolation, fn),
    transactionWith: (isolation, first, fn) => inPooled(isolation, fn, first),
    async session(fn) {
      const client = await pool.connect();
      const { closed, detach } = closedSignal(client);
      let destroy = false;
      try {
        return await fn(client, closed);
      } catch (error) {
        // Never hand a connection that may still hold our session locks back to the pool.
        destroy = true;
        throw error;
      } finally {
        detach();
        if (destroy) client.on('error', () => {});
        client.release(destroy);
      }
    },
  };
  joinable.add(db);
  keepers.set(db, pool);
  return db;
}

/** One connection: transactions (and the store's claims behind them) take turns. Use a Pool for concurrency. */
function fromPgClient(client: PgClientLike): SqlDatabase {
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = turn.then(work, work);
    turn = run.catch(() => {});
    return run;
  };
  const db: SqlDatabase = {
    query: (text, values) => exclusive(() => client.query(text, values)),
    transaction: (isolation, fn) => exclusive(() => inTransaction(client, isolation, fn)),
    transactionWith: (isolation, first, fn) => exclusive(() => inTransaction(client, isolation, fn, first)),
    async session(fn) {
      const { closed, detach } = closedSignal(client);
      const connection: SqlExecutor = { query: (text, values) => exclusive(() => client.query(text, values)) };
      try {
        return await fn(connection, closed);
      } finally {
        detach();
      }
    },
  };
  joinable.add(db);
  return db;
}

/** The handles `postgresInbox({ pool })` accepts: a `pg` Pool, a connected `pg` Client, or any `SqlDatabase`. */
export type PostgresHandle = PgPoolLike | PgClientLike | SqlDatabase;

// Each database built here, and the handle it was built from.
const origins = new WeakMap<SqlDatabase, object>();

/** True when both were built from the same handle (the same pg Pool or Client, or the same SqlDatabase): one database. */
export function sameDatabase(a: SqlDatabase, b: SqlDatabase): boolean {
  return (origins.get(a) ?? a) === (origins.get(b) ?? b);
}

export function toSqlDatabase(handle: PostgresHandle): SqlDatabase {
  const built = (db: SqlDatabase) => (origins.set(db, handle), db);
  if (isPgPool(handle)) return built(fromPgPool(handle));
  const maybe = handle as Partial<SqlDatabase>;
  if (typeof maybe.transaction === 'function' && typeof maybe.session === 'function' && typeof maybe.query === 'function') {
    return handle as SqlDatabase;
  }
  if (isPgClient(handle)) return built(fromPgClient(handle));
  throw mustBe('pool', 'a pg Pool, a connected pg Client, or a SqlDatabase (see fromPostgresJs, fromKysely, fromDrizzle)', handle);
}
