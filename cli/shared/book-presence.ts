import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';
import { escapeControls } from '../../src/shared/escape-controls.js';
import { UsageError } from './cli-args.js';

/**
 * Replay, reconcile and worker judge payments by a book that must already exist: they never create one.
 * A mistyped `--book-prefix` would otherwise be a fresh, empty book, under which every payment it held or
 * applied runs again. On Postgres the book's three tables must be there (else exit 2); on Redis an empty
 * book is only warned about, since a brand-new deployment's book is legitimately empty.
 */
export async function checkPostgresBook(pool: pg.Pool, prefix: string): Promise<void> {
  const tables = ['resources', 'held', 'flags'].map((table) => `"${prefix}_${table}"`);
  const { rows } = await pool.query<{ found: string }>('SELECT count(to_regclass(name)) AS found FROM unnest($1::text[]) AS name', [
    tables,
  ]);
  if (Number(rows[0]?.found) === tables.length) return;
  throw new UsageError(
    `the payment book's tables at prefix '${prefix}' were not found (${prefix}_resources, ${prefix}_held, ${prefix}_flags) — ` +
      "a mistyped --book-prefix? Run the receiver once or the book's migrate() to create them, or pass --no-book",
  );
}

/** One warning line when no key exists under the book's prefix (on a Cluster, on any master). */
export async function warnIfRedisBookEmpty(command: string, client: Redis | Cluster, prefix: string): Promise<void> {
  const nodes: Redis[] =
    'nodes' in client && typeof client.nodes === 'function' && client.isCluster ? client.nodes('master') : [client as Redis];
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  for (const node of nodes) if (await hasKey(node, pattern)) return;
  process.stderr.write(
    `pixhook ${command}: the book at prefix '${escapeControls(prefix)}' is empty: a mistyped --book-prefix? every payment will be judged as new\n`,
  );
}

async function hasKey(node: Redis, pattern: string): Promise<boolean> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) return true;
    cursor = next;
  } while (cursor !== '0');
  return false;
}
