import { eventKey, type HandlerContext, type PixEvent, type UnknownEvent } from '../index.js';
import { inboxNames, inboxSchemaSql, type InboxTableOptions } from './inbox-schema.js';
import { toSqlDatabase, type PostgresHandle } from './pg-database.js';
import { markerOf, markStatementText, sessionLockStore, shareMarker, type PostgresDedupeStore } from './session-lock-store.js';
import { sharedTransactions, type SharedTransactions } from './shared-transactions.js';
import { postgresOrderLeases } from './postgres-order-leases.js';
import { registerOrderLeases } from '../shared/order-lease.js';
import { registerEffectCommits } from '../shared/not-committed.js';
import type { IsolationLevel, SqlExecutor } from './sql-database.js';
import type { RetryOptions } from '../shared/retry-options.js';
import { checkInteger, checkTtlMs, maxTtlMs, mustBe } from '../shared/option-checks.js';
import {
  checkedIsolation,
  claimIn,
  defaultClaim,
  defaultClaimDoneSql,
  freshClaim,
  keyOf,
  transactional,
  transactionRetry,
  type TransactionalHandler,
  type TransactionalOptions,
  type TransactionalSettings,
} from './transactional.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface PostgresInboxOptions extends InboxTableOptions {
  /** A `pg` Pool (the reference), a connected `pg` Client, or a `SqlDatabase` (`fromPostgresJs`, `fromKysely`, `fromDrizzle`). */
  pool: PostgresHandle;
  /** Must be the processing's `dedupeKey` when you set one there. Default: pixhook's. */
  dedupeKey?: (event: PixEvent) => string;
  /** How long a transactional handler's mark makes a redelivery a duplicate; also `sweep`'s default. Default 24 h. */
  dedupeTtlMs?: number;
  /** Isolation level of transactional handlers. Default `read committed`. */
  isolation?: IsolationLevel;
  /**
   * Runs of a transactional handler after a serialization failure (40001) or deadlock (40P01), and the
   * waits between them. Default `{ attempts: 4, backoff: { delayMs: 20, factor: 2, maxDelayMs: 5000 } }`;
   * each wait is random between 5 ms and the backoff's.
   */
  retry?: RetryOptions;
}

export interface SweepOptions {
  /** Deletes keys marked done longer ago than this. Default: `dedupeTtlMs` (24 h). */
  olderThanMs?: number;
  /** Rows per DELETE, so a sweep never holds many locks at once. Default 5 000. */
  batchSize?: number;
}

export interface PostgresInbox {
  /** A `DedupeStore` for `createProcessing({ store })` / `createReceiver({ store })`: dedupe across instances with Postgres alone. */
  readonly store: PostgresDedupeStore;
  /**
   * Wraps a handler so it runs in one transaction whose first statement claims `context.key`: its
   * writes and the key's mark commit together, or neither does. When the key was already done the
   * handler is not called and the wrapper resolves all the same (the delivery is answered 200, the job
   * completes): `onSkipped` and `transactionalOutcome(context)` tell you it was a duplicate.
   */
  transactional<E extends PixEvent | UnknownEvent>(
    handler: TransactionalHandler<E>,
    options?: TransactionalOptions,
  ): (event: E, context: HandlerContext) => Promise<void>;
  /** The same claim inside a transaction you already run: `claimed` (go on) or `done` (skip your writes). */
  claim(tx: SqlExecutor, event: PixEvent | string, options?: { scope?: string }): Promise<'claimed' | 'done'>;
  /** Creates the table and index if missing (safe to run from several instances at once). */
  migrate(): Promise<void>;
  /** The DDL `migrate()` runs, for your own migration tool. */
  schemaSql(): string;
  /** Deletes old done keys in batches; resolves with how many. */
  sweep(options?: SweepOptions): Promise<number>;
  /** Closes the store's lock connection (the pool stays yours). */
  close(): Promise<void>;
}

/** Internal: what `postgresPaymentBook({ inbox })` shares with the inbox. */
interface InboxLink {
  store: PostgresDedupeStore;
  /** The open book transactions. */
  shared: SharedTransactions;
  /** A transactional handler's default claim of `key`, as it sends it. */
  claimOf(key: string): { text: string; values: (string | number)[] };
  /** The text of that claim as written at the COMMIT when the key had no row when read (transactional.ts, `freshClaim`); the same values. */
  readonly freshClaimText: string;
  /** A column reading what that claim would find of the key (`$2`): `true` done, `false` expired, `NULL` no row. */
  readonly claimDoneSql: string;
  /** The texts of what the inbox sends with a book transaction's COMMIT: those claims (asserted there), and the store's done mark. */
  readonly claimTexts: readonly string[];
  readonly markText: string;
}

const links = new WeakMap<PostgresInbox, InboxLink>();

/** Internal: what `postgresPaymentBook({ inbox })` shares with the inbox (its store, and the open book transactions). */
export function inboxLink(inbox: PostgresInbox): InboxLink | undefined {
  return links.get(inbox);
}

export function postgresInbox(options: PostgresInboxOptions): PostgresInbox {
  refuseUnknownOptions(options, postgresInboxOptionNames, 'postgresInbox');
  if (options?.pool === undefined || options.pool === null) {
    throw mustBe('pool', 'a pg Pool (e.g. new pg.Pool({ connectionString })), a connected pg Client or a SqlDatabase', options?.pool);
  }
  const db = toSqlDatabase(options.pool);
  const names = inboxNames(options);
  const isolation = checkedIsolation(options.isolation ?? 'read committed');
  // A run that never ends its claim must not keep a resource locked: its book transaction commits after 10 minutes.
  const shared = sharedTransactions(10 * 60_000, (key) =>
    process.emitWarning(
      `pixhook: the payment book's transaction for ${JSON.stringify(key)} was never ended by its run; committed after 10 minutes`,
    ),
  );
  const settings: TransactionalSettings = {
    db,
    names,
    dedupeKey: options.dedupeKey ?? eventKey,
    dedupeTtlMs: checkTtlMs('dedupeTtlMs', options.dedupeTtlMs, 24 * 60 * 60 * 1000),
    isolation,
    retry: transactionRetry(options),
    shared,
  };
  const store = withSharedTransactions(sessionLockStore(db, names), settings.shared);
  const ddl = inboxSchemaSql(options);

  const inbox: PostgresInbox = {
    store,
    transactional: (handler, handlerOptions) => transactional(settings, handler, handlerOptions),
    claim: (tx, event, claimOptions) => claimIn(tx, settings, keyOf(settings, event), claimOptions?.scope),
    async migrate() {
      // Two instances migrating at once would race on CREATE TABLE IF NOT EXISTS; one lock serializes them.
      await db.transaction('read committed', async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${names.lockSpace}migrate`]);
        for (const statement of ddl.split(/;\n/)) {
          const text = statement.replace(/--.*$/gm, '').trim().replace(/;$/, '');
          if (text !== '') await tx.query(text);
        }
      });
    },
    schemaSql: () => ddl,
    async sweep(sweepOptions = {}) {
      const olderThanMs = checkInteger('olderThanMs', sweepOptions.olderThanMs, 0, maxTtlMs, settings.dedupeTtlMs);
      const batchSize = checkInteger('batchSize', sweepOptions.batchSize, 1, 1_000_000, 5_000);
      const sql = `DELETE FROM ${names.table} WHERE (scope, key) IN (
        SELECT scope, key FROM ${names.table} WHERE done_at < now() - $1::double precision * interval '1 millisecond' LIMIT $2 FOR UPDATE SKIP LOCKED
      ) RETURNING 1`;
      let total = 0;
      for (;;) {
        const { rows } = await db.query(sql, [olderThanMs, batchSize]);
        total += rows.length;
        if (rows.length < batchSize) return total;
      }
    },
    close: () => store.close(),
  };
  links.set(inbox, {
    store,
    shared,
    claimOf: (key) => defaultClaim(settings, key),
    freshClaimText: freshClaim(settings, '').text,
    claimDoneSql: defaultClaimDoneSql(names),
    claimTexts: [freshClaim(settings, '').text, defaultClaim(settings, '').text],
    markText: markStatementText(names),
  });
  // The resource order leases live in the inbox's table (durable workers need them; src/postgres/postgres-order-leases.ts).
  registerOrderLeases(store, postgresOrderLeases(db, names));
  return inbox;
}

/** The store, committing a book transaction kept open for the event when it is marked done, and rolling it back when its claim is given back. */
function withSharedTransactions(store: PostgresDedupeStore, shared: SharedTransactions | undefined): PostgresDedupeStore {
  if (shared === undefined) return store;
  const marker = markerOf(store);
  const wrapped = Object.assign(Object.create(store) as PostgresDedupeStore, {
    async complete(key: string, owner: string, ttlMs: number) {
      // The done mark commits in the book's open transaction, with the book's write and the handler's.
      const folded = await marker?.completeWith(key, owner, ttlMs, (mark) => shared.settle(key, true, mark.statement));
      if (folded === true) return true;
      await shared.settle(key, true);
      return store.complete(key, owner, ttlMs);
    },
    async release(key: string, owner: string) {
      await shared.settle(key, false).catch(() => {});
      return store.release(key, owner);
    },
  });
  shareMarker(wrapped, store);
  // While a book's transaction is kept open for the key, its done mark commits the handlers' effects too.
  registerEffectCommits(wrapped, (key) => shared.take(key) !== undefined);
  return wrapped;
}

/** Every option postgresInbox takes. */
const postgresInboxOptionNames = optionNames<PostgresInboxOptions>()([
  'pool',
  'dedupeKey',
  'dedupeTtlMs',
  'isolation',
  'retry',
  'table',
  'schema',
]);
