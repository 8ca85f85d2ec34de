import { fenceOrder, type OrderLeases } from '../shared/order-lease.js';
import type { InboxNames } from './inbox-schema.js';
import type { SqlExecutor } from './sql-database.js';

// Rows of the inbox table itself (no new table, so nothing to migrate): `scope` names what a row is, `key`
// the resource (a lease) or the dedupe key (a queued job). A lease's fence is its `done_at` in microseconds,
// set by the one statement that may take it, so no two takes of a resource share one.
const leaseScope = 'pixhook:order';
const queuedScope = (resource: string) => `pixhook:order-queue:${resource}`;
// A queued job older than this no longer holds up the jobs behind it (removed by hand, or its receiver died
// between queuing and answering).
const staleQueuedMs = 60 * 60_000;

/**
 * The resource order leases of a Postgres inbox, in its table: a lease is a row whose `expires_at` is in the
 * future. `sweep()` deletes the old ones with the done keys.
 */
export function postgresOrderLeases(db: SqlExecutor, names: InboxNames): OrderLeases {
  const micros = `(extract(epoch from done_at) * 1000000)::bigint`;
  const takeSql = `INSERT INTO ${names.table} AS t (scope, key, done_at, expires_at)
    VALUES ($1, $2, clock_timestamp(), clock_timestamp() + $3::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO UPDATE SET done_at = clock_timestamp(), expires_at = EXCLUDED.expires_at
      WHERE t.expires_at <= clock_timestamp()
    RETURNING ${micros}::text AS fence`;
  const extendSql = `UPDATE ${names.table} SET expires_at = clock_timestamp() + $4::double precision * interval '1 millisecond'
    WHERE scope = $1 AND key = $2 AND ${micros} = $3::bigint AND expires_at > clock_timestamp() RETURNING 1 AS renewed`;
  const giveSql = `UPDATE ${names.table} SET expires_at = clock_timestamp()
    WHERE scope = $1 AND key = $2 AND ${micros} = $3::bigint AND expires_at > clock_timestamp() RETURNING 1 AS given`;
  const queueSql = `INSERT INTO ${names.table} (scope, key, done_at, expires_at)
    VALUES ($1, $2, to_timestamp($3::double precision / 1000000), now() + $4::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO UPDATE SET done_at = EXCLUDED.done_at, expires_at = EXCLUDED.expires_at`;
  const aheadSql = `SELECT e.key FROM ${names.table} e, ${names.table} m
    WHERE m.scope = $1 AND m.key = $2 AND e.scope = $1 AND e.done_at < m.done_at AND e.expires_at > now()
    ORDER BY e.done_at LIMIT 1`;
  const settleSql = `DELETE FROM ${names.table} WHERE scope = $1 AND key = $2`;
  const ms = (value: number) => Math.max(1, Math.ceil(value));
  // The fence is `<micros>:<owner>`: the owner only names the run in logs; the micros are what the row checks.
  const microsOf = (fence: string) => String(fenceOrder(fence));

  return {
    async take(resource, owner, ttlMs) {
      const { rows } = await db.query(takeSql, [leaseScope, resource, ms(ttlMs)]);
      const fence = rows[0]?.['fence'];
      return typeof fence === 'string' ? `${fence}:${owner}` : undefined;
    },
    async extend(resource, fence, ttlMs) {
      return (await db.query(extendSql, [leaseScope, resource, microsOf(fence), ms(ttlMs)])).rows.length === 1;
    },
    async give(resource, fence) {
      return (await db.query(giveSql, [leaseScope, resource, microsOf(fence)])).rows.length === 1;
    },
    async queued(resource, fence, key) {
      await db.query(queueSql, [queuedScope(resource), key, microsOf(fence), staleQueuedMs]);
    },
    async aheadOf(resource, key) {
      const { rows } = await db.query(aheadSql, [queuedScope(resource), key]);
      const ahead = rows[0]?.['key'];
      return typeof ahead === 'string' ? ahead : undefined;
    },
    async settled(resource, key) {
      await db.query(settleSql, [queuedScope(resource), key]);
    },
  };
}
