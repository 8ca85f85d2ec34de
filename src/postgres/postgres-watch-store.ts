import { checkIdentifier } from '../shared/option-checks.js';
import type { WatchEntry, WatchStats, WatchStore } from '../reconcile/watch-store.js';
import { toSqlDatabase, type PostgresHandle } from './pg-database.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface PostgresWatchStoreOptions {
  pool: PostgresHandle;
  /** Prefix of the two tables (`<prefix>_watch`, `<prefix>_watch_reads`). Default `pixhook`. */
  prefix?: string;
  /** Epoch milliseconds, for lease checks. Default `Date.now`. */
  now?: () => number;
}

export interface PostgresWatchStore extends WatchStore {
  /** Creates the tables (idempotent). */
  migrate(): Promise<void>;
  /** The DDL, for your own migration tool. */
  schemaSql(): string;
}

/**
 * The reconciler's watch list and schedule in Postgres, shared by every reconciler on the database:
 * a due charge is leased with `FOR UPDATE SKIP LOCKED` (two instances never read the same charge at
 * once), and the query budget is one sliding window, taken under an advisory transaction lock.
 */
export function postgresWatchStore(options: PostgresWatchStoreOptions): PostgresWatchStore {
  refuseUnknownOptions(options, postgresWatchStoreOptionNames, 'postgresWatchStore');
  const prefix = options.prefix ?? 'pixhook';
  checkIdentifier('prefix', prefix, 41);
  const db = toSqlDatabase(options.pool);
  const now = options.now ?? Date.now;
  const watch = `"${prefix}_watch"`;
  const reads = `"${prefix}_watch_reads"`;
  const schema = [
    `CREATE TABLE IF NOT EXISTS ${watch} (`,
    `  charge_id     text   PRIMARY KEY,`,
    `  created_at    bigint NOT NULL,  -- epoch ms`,
    `  checks        int    NOT NULL DEFAULT 0,`,
    `  next_check_at bigint NOT NULL,  -- epoch ms; while leased, the lease's end`,
    `  lease_owner   text,`,
    `  lease_until   bigint`,
    `);`,
    `CREATE INDEX IF NOT EXISTS "${prefix}_watch_due" ON ${watch} (next_check_at);`,
    `CREATE TABLE IF NOT EXISTS ${reads} (at bigint NOT NULL);`,
    `CREATE INDEX IF NOT EXISTS "${prefix}_watch_reads_at" ON ${reads} (at);`,
  ].join('\n');

  const entry = (row: Record<string, unknown>): WatchEntry => ({
    chargeId: String(row['charge_id']),
    createdAt: Number(row['created_at']),
    checks: Number(row['checks']),
    nextCheckAt: Number(row['due_at'] ?? row['next_check_at']),
  });

  return {
    schemaSql: () => schema,
    async migrate() {
      await db.query(schema);
    },
    async watch(chargeId, createdAt = now()) {
      await db.query(`INSERT INTO ${watch} (charge_id, created_at, next_check_at) VALUES ($1, $2, $2) ON CONFLICT (charge_id) DO NOTHING`, [
        chargeId,
        createdAt,
      ]);
    },
    async due(chargeId, at) {
      const { rows } = await db.query(
        `UPDATE ${watch} SET next_check_at = LEAST(next_check_at, $2)
         WHERE charge_id = $1 AND (lease_until IS NULL OR lease_until <= $3) RETURNING 1 AS ok`,
        [chargeId, Math.round(at), now()],
      );
      return rows.length > 0;
    },
    async lease(at, limit, leaseMs, owner) {
      const { rows } = await db.query(
        `WITH due AS (
           SELECT charge_id, next_check_at FROM ${watch} WHERE next_check_at <= $1 ORDER BY next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         UPDATE ${watch} w SET lease_owner = $3, lease_until = $1 + $4, next_check_at = $1 + $4
         FROM due WHERE w.charge_id = due.charge_id
         RETURNING w.charge_id, w.created_at, w.checks, due.next_check_at AS due_at`,
        [at, limit, owner, leaseMs],
      );
      return rows.map(entry).sort((x, y) => x.nextCheckAt - y.nextCheckAt);
    },
    async reschedule(chargeId, owner, nextCheckAt, checks) {
      const { rows } = await db.query(
        `UPDATE ${watch} SET next_check_at = $3, checks = $4, lease_owner = NULL, lease_until = NULL
         WHERE charge_id = $1 AND lease_owner = $2 AND lease_until > $5 RETURNING 1 AS ok`,
        [chargeId, owner, nextCheckAt, checks, now()],
      );
      return rows.length > 0;
    },
    async finish(chargeId, owner) {
      const { rows } = await db.query(
        `DELETE FROM ${watch} WHERE charge_id = $1 AND lease_owner = $2 AND lease_until > $3 RETURNING 1 AS ok`,
        [chargeId, owner, now()],
      );
      return rows.length > 0;
    },
    async reserveReads(want, limit, windowMs, at) {
      return db.transaction('read committed', async (tx) => {
        // One budget for every reconciler: taken under a lock that ends with the transaction.
        await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${prefix}:watch-reads`]);
        await tx.query(`DELETE FROM ${reads} WHERE at <= $1`, [at - windowMs]);
        const { rows } = await tx.query(`SELECT count(*)::int AS n FROM ${reads}`);
        const granted = Math.max(0, Math.min(want, limit - Number(rows[0]?.['n'] ?? 0)));
        if (granted > 0) await tx.query(`INSERT INTO ${reads} (at) SELECT $1::bigint FROM generate_series(1, $2::int)`, [at, granted]);
        return granted;
      });
    },
    async stats(): Promise<WatchStats> {
      const { rows } = await db.query(`SELECT count(*)::int AS watched, min(created_at) AS oldest FROM ${watch}`);
      const row = rows[0] ?? {};
      return {
        watched: Number(row['watched'] ?? 0),
        oldestCreatedAt: row['oldest'] === null || row['oldest'] === undefined ? undefined : Number(row['oldest']),
      };
    },
  };
}

/** Every option postgresWatchStore takes. */
const postgresWatchStoreOptionNames = optionNames<PostgresWatchStoreOptions>()(['pool', 'prefix', 'now']);
