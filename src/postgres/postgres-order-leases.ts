import { fenceOrder, type OrderLeases } from '../shared/order-lease.js';
import type { InboxNames } from './inbox-schema.js';
import type { SqlExecutor } from './sql-database.js';

// Rows of the inbox table itself (no new table, so nothing to migrate): `scope` names what a row is, `key`
// the resource (a lease) or the waiter (a ticket). A lease's fence is its `done_at` in microseconds, set by the
// one statement that may take it, so no two takes of a resource share one. (Rows of scope
// `pixhook:order-queue:<resource>`, durable jobs queued in order by earlier versions, are read by nothing now;
// `sweep()` deletes them with the other old rows.)
const leaseScope = 'pixhook:order';
// A waiter's ticket: `key` its owner, `done_at` its arrival (kept while it renews), `expires_at` its last ask plus
// its TTL (a ticket not renewed in time, its waiter gone, is skipped; `sweep()` deletes it later).
const waitScope = (resource: string) => `pixhook:order-wait:${resource}`;

/**
 * The resource order leases of a Postgres inbox, in its table: a lease is a row whose `expires_at` is in the
 * future; its waiters' tickets are rows too, served in arrival order. `sweep()` deletes the old ones with the
 * done keys. A delivery's dedupe key is not read here: its claim answers before it queues (processing claims first).
 */
export function postgresOrderLeases(db: SqlExecutor, names: InboxNames): OrderLeases {
  const micros = `(extract(epoch from done_at) * 1000000)::bigint`;
  // One statement: the lease when it is free and no live ticket but the asker's own is first; the asker's ticket
  // leaves the queue with the take, or is queued (renewed where it stands) when refused and a ticket TTL is given.
  const takeSql = `WITH head AS (
      SELECT key FROM ${names.table} WHERE scope = $4 AND expires_at > clock_timestamp() ORDER BY done_at, key LIMIT 1
    ), taken AS (
      INSERT INTO ${names.table} AS t (scope, key, done_at, expires_at)
      SELECT $1, $2, clock_timestamp(), clock_timestamp() + $3::double precision * interval '1 millisecond'
      WHERE NOT EXISTS (SELECT 1 FROM head WHERE head.key <> $5)
      ON CONFLICT (scope, key) DO UPDATE SET done_at = clock_timestamp(), expires_at = EXCLUDED.expires_at
        WHERE t.expires_at <= clock_timestamp()
      RETURNING ${micros}::text AS fence
    ), served AS (
      DELETE FROM ${names.table} WHERE scope = $4 AND key = $5 AND EXISTS (SELECT 1 FROM taken)
    ), ticket AS (
      INSERT INTO ${names.table} (scope, key, done_at, expires_at)
      SELECT $4, $5, clock_timestamp(), clock_timestamp() + $6::double precision * interval '1 millisecond'
      WHERE $6::double precision IS NOT NULL AND NOT EXISTS (SELECT 1 FROM taken)
      ON CONFLICT (scope, key) DO UPDATE SET expires_at = EXCLUDED.expires_at
    )
    SELECT fence FROM taken`;
  const withdrawSql = `DELETE FROM ${names.table} WHERE scope = $1 AND key = $2`;
  const extendSql = `UPDATE ${names.table} SET expires_at = clock_timestamp() + $4::double precision * interval '1 millisecond'
    WHERE scope = $1 AND key = $2 AND ${micros} = $3::bigint AND expires_at > clock_timestamp() RETURNING 1 AS renewed`;
  const giveSql = `UPDATE ${names.table} SET expires_at = clock_timestamp()
    WHERE scope = $1 AND key = $2 AND ${micros} = $3::bigint AND expires_at > clock_timestamp() RETURNING 1 AS given`;
  const ms = (value: number) => Math.max(1, Math.ceil(value));
  // The fence is `<micros>:<owner>`: the owner only names the run in logs; the micros are what the row checks.
  const microsOf = (fence: string) => String(fenceOrder(fence));

  return {
    async take(resource, owner, ttlMs, ask) {
      const ticket = ask?.ticketTtlMs === undefined ? null : ms(ask.ticketTtlMs);
      const { rows } = await db.query(takeSql, [leaseScope, resource, ms(ttlMs), waitScope(resource), owner, ticket]);
      const fence = rows[0]?.['fence'];
      return typeof fence === 'string' ? `${fence}:${owner}` : undefined;
    },
    async withdraw(resource, owner) {
      await db.query(withdrawSql, [waitScope(resource), owner]);
    },
    async extend(resource, fence, ttlMs) {
      return (await db.query(extendSql, [leaseScope, resource, microsOf(fence), ms(ttlMs)])).rows.length === 1;
    },
    async give(resource, fence) {
      return (await db.query(giveSql, [leaseScope, resource, microsOf(fence)])).rows.length === 1;
    },
  };
}
