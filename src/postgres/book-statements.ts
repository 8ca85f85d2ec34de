import type { BookNames } from './book-schema.js';

/**
 * The payment book's statements over its tables (`names`). `claimDoneSql`: the inbox's read of whether a
 * transactional handler's default claim would find its key done, read with the lock when the book keeps the
 * transaction open for the handlers.
 */
export function bookStatements(names: BookNames, claimDoneSql: string | undefined) {
  // Locks the resource's row (creating it when new) and reads what the decision needs, in one statement.
  const lockSql = `INSERT INTO ${names.resources} AS r (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
    RETURNING r.state, EXISTS (SELECT 1 FROM ${names.flags} WHERE name = 'expecting') AS expecting,
    (SELECT data FROM ${names.held} WHERE resource_key = $1 AND dedupe_key = $2 AND state IN ('held', 'releasing')) AS open_held`;
  // Kept open for the handlers: it also reads whether a transactional handler's claim would find the key done.
  const sharedLockSql = claimDoneSql === undefined ? lockSql : `${lockSql}, ${claimDoneSql} AS claim_done`;
  const writeSql = `WITH w AS (UPDATE ${names.resources} SET state = $2, has_disputes = $3, updated_at = now() WHERE key = $1)
    INSERT INTO ${names.held} (held_id, resource_key, dedupe_key, state, data) SELECT $4, $1, $5, 'held', $6 WHERE $4::text IS NOT NULL`;
  const heldSql = `SELECT data, owner, lease_until FROM ${names.held} WHERE held_id = $1 FOR UPDATE`;
  const updateHeldSql = `UPDATE ${names.held} SET state = $2, owner = $3, lease_until = $4, data = $5,
    closed_at = CASE WHEN $2 IN ('released', 'dismissed') THEN now() ELSE NULL END WHERE held_id = $1`;
  const resourceSql = `SELECT state FROM ${names.resources} WHERE key = $1 FOR UPDATE`;
  const saveSql = `UPDATE ${names.resources} SET state = $2, has_disputes = $3, updated_at = now() WHERE key = $1`;

  // The apply's compare-and-set; an upsert, since a judgement by `readSql` creates no row.
  const casSql = `INSERT INTO ${names.resources} AS r (key, state, has_disputes) VALUES ($1, $2, $3)
    ON CONFLICT (key) DO UPDATE SET state = EXCLUDED.state, has_disputes = EXCLUDED.has_disputes, updated_at = now()
    WHERE r.state IS NOT DISTINCT FROM $4::text RETURNING 1 AS written`;
  // The compare-and-set and, when it wrote, the store's done mark (the inbox table's row): one statement, one commit.
  const markedCasSql = (inbox: string) => `WITH cas AS (${casSql})
    INSERT INTO ${inbox} AS inbox (scope, key, expires_at) SELECT $5, $6, now() + $7::double precision * interval '1 millisecond' FROM cas
    ON CONFLICT (scope, key) DO UPDATE SET done_at = now(), expires_at = EXCLUDED.expires_at RETURNING 1 AS marked`;
  // What `lockSql` reads, read only: no row lock, no row written, so no commit to wait for.
  const readSql = `SELECT (SELECT state FROM ${names.resources} WHERE key = $1) AS state,
    EXISTS (SELECT 1 FROM ${names.flags} WHERE name = 'expecting') AS expecting,
    (SELECT data FROM ${names.held} WHERE resource_key = $1 AND dedupe_key = $2 AND state IN ('held', 'releasing')) AS open_held`;
  return { lockSql, sharedLockSql, writeSql, heldSql, updateHeldSql, resourceSql, saveSql, casSql, markedCasSql, readSql };
}
