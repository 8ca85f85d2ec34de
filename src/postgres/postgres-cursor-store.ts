import type { CursorStore } from '../reconcile/cursor-store.js';
import { checkIdentifier } from '../shared/option-checks.js';
import { toSqlDatabase, type PostgresHandle } from './pg-database.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface PostgresCursorStoreOptions {
  /** A `pg` Pool (or any handle `postgresWatchStore` takes). */
  db: PostgresHandle;
  /** Prefix of the table (`<prefix>_reconcile_cursor`). Default `pixhook`. */
  prefix?: string;
}

export interface PostgresCursorStore extends CursorStore {
  /** Creates the table (idempotent). */
  migrate(): Promise<void>;
  /** The DDL, for your own migration tool. */
  schemaSql(): string;
}

/** The listing reconciler's cursor in Postgres: one row per cursor name. */
export function postgresCursorStore(options: PostgresCursorStoreOptions): PostgresCursorStore {
  refuseUnknownOptions(options, postgresCursorStoreOptionNames, 'postgresCursorStore');
  const prefix = options.prefix ?? 'pixhook';
  checkIdentifier('prefix', prefix, 41);
  const db = toSqlDatabase(options.db);
  const table = `"${prefix}_reconcile_cursor"`;
  const schema = [
    `CREATE TABLE IF NOT EXISTS ${table} (`,
    `  name       text   PRIMARY KEY,`,
    `  position   bigint NOT NULL,  -- epoch ms`,
    `  updated_at timestamptz NOT NULL DEFAULT now()`,
    `);`,
  ].join('\n');
  return {
    schemaSql: () => schema,
    async migrate() {
      await db.query(schema);
    },
    async get(name) {
      const { rows } = await db.query(`SELECT position FROM ${table} WHERE name = $1`, [name]);
      const position = rows[0] === undefined ? Number.NaN : Number(rows[0]['position']);
      return Number.isFinite(position) ? position : undefined;
    },
    async set(name, position) {
      await db.query(
        `INSERT INTO ${table} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`,
        [name, Math.floor(position)],
      );
    },
  };
}

/** Every option postgresCursorStore takes. */
const postgresCursorStoreOptionNames = optionNames<PostgresCursorStoreOptions>()(['db', 'prefix']);
