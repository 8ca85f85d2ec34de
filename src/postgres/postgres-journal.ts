import type { DeliveryJournal, JournalEntry, Logger } from '../index.js';
import { entryFromText, entryText, listLimit, SharedJournalFeed } from '../journal/backend.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { checkIdentifier, checkInteger, checkObject, checkTimeoutMs, mustBe } from '../shared/option-checks.js';
import { toSqlDatabase, type PostgresHandle } from './pg-database.js';
import type { SqlRow } from './sql-database.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface PostgresJournalOptions {
  /** A `pg` Pool or Client, or any `SqlDatabase` (`fromPostgresJs`, `fromKysely`, `fromDrizzle`). */
  db: PostgresHandle;
  /** Verified deliveries kept; the oldest go first. Default 10 000. */
  max?: number;
  /**
   * Unverified deliveries (a bad or missing signature) are kept apart: the newest `maxUnverified`, so a
   * flood of forged requests never pushes out a genuine entry. Default a tenth of `max` (at least 1).
   */
  maxUnverified?: number;
  /** Default `pixhook_journal`. */
  table?: string;
  /** Default: none (the connection's `search_path`). */
  schema?: string;
  /** How often `subscribe` asks for other instances' writes while someone listens. Default 500 ms. */
  pollMs?: number;
  /** Hears a failed poll or a subscriber that threw (writes reject instead). Default: logged to `logger`. */
  onError?: (error: unknown) => void;
  logger?: Logger;
}

export interface PostgresJournal extends DeliveryJournal {
  /** Creates the table (idempotent); the first call of any method runs it too. */
  migrate(): Promise<void>;
  /** The DDL `migrate()` runs, for your own migration tool. */
  schemaSql(): string;
}

const pageSize = 200;

/**
 * A delivery journal several instances share through one Postgres table: a row per delivery, its
 * attempts a jsonb array appended in place, trimmed to `max` on every add. Every change takes the next
 * value of a sequence, and `subscribe` polls for rows past the last one seen, so a separate process
 * hears every instance's writes.
 */
export function postgresJournal(options: PostgresJournalOptions): PostgresJournal {
  refuseUnknownOptions(options, postgresJournalOptionNames, 'postgresJournal');
  checkObject('options', options, 'an object ({ db, max?, table? })');
  const max = checkInteger('max', options.max, 1, 10_000_000, 10_000);
  const maxUnverified = checkInteger('maxUnverified', options.maxUnverified, 1, 10_000_000, Math.max(1, Math.floor(max / 10)));
  const pollMs = checkTimeoutMs('pollMs', options.pollMs, 500);
  const tableName = checkIdentifier('table', options.table ?? 'pixhook_journal', 50);
  const schema = options.schema === undefined ? undefined : checkIdentifier('schema', options.schema);
  if (options.onError !== undefined && typeof options.onError !== 'function') throw mustBe('onError', 'a function', options.onError);
  if (options.db === undefined || options.db === null) throw mustBe('db', 'a pg Pool or Client, or a SqlDatabase', options.db);
  const db = toSqlDatabase(options.db);
  const q = (name: string) => (schema === undefined ? `"${name}"` : `"${schema}"."${name}"`);
  const table = q(tableName);
  const seq = q(`${tableName}_seq`);
  const nextChange = `nextval('${seq}')`;
  const ddl = [
    ...(schema === undefined ? [] : [`CREATE SCHEMA IF NOT EXISTS "${schema}";`]),
    `CREATE SEQUENCE IF NOT EXISTS ${seq};`,
    `CREATE TABLE IF NOT EXISTS ${table} (`,
    `  id          text   PRIMARY KEY,  -- sorts by arrival time`,
    `  fields      text   NOT NULL,     -- the entry as JSON, without its attempts`,
    `  attempts    jsonb  NOT NULL DEFAULT '[]'::jsonb,`,
    `  event       text,`,
    `  status      int    NOT NULL,`,
    `  reason      text,`,
    `  resource_id text,`,
    `  change      bigint NOT NULL DEFAULT ${nextChange}  -- the last change's number, for subscribers`,
    `);`,
    `CREATE INDEX IF NOT EXISTS "${`${tableName}_change`}" ON ${table} (change);`,
    // Unverified deliveries are trimmed apart (a table made by an older version gets the column).
    `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS verified boolean NOT NULL DEFAULT true;`,
    `CREATE INDEX IF NOT EXISTS "${`${tableName}_verified`}" ON ${table} (verified, id);`,
  ].join('\n');
  const log = guardLogger(options.logger);
  const onError =
    options.onError ?? ((error: unknown) => log.error({ error: describeError(error) }, 'pixhook: the postgres journal feed failed'));

  let migrated: Promise<void> | undefined;
  function migrate(): Promise<void> {
    migrated ??= db
      .transaction('read committed', async (tx) => {
        // One migration at a time across instances: concurrent CREATE … IF NOT EXISTS can still collide.
        await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`pixhook:journal:${schema ?? ''}.${tableName}`]);
        for (const statement of ddl.split(/;\n/)) {
          const text = statement.replace(/--.*$/gm, '').trim().replace(/;$/, '');
          if (text !== '') await tx.query(text);
        }
      })
      .catch((error: unknown) => {
        migrated = undefined;
        throw error;
      });
    return migrated;
  }

  const read = (row: SqlRow): JournalEntry | undefined =>
    entryFromText(String(row['fields']), typeof row['attempts'] === 'string' ? row['attempts'] : JSON.stringify(row['attempts'] ?? []));

  const feed = new SharedJournalFeed(
    async (cursor) => {
      await migrate();
      if (cursor === undefined) {
        const { rows } = await db.query(`SELECT coalesce(max(change), 0)::text AS change FROM ${table}`);
        return { cursor: String(rows[0]?.['change'] ?? '0'), entries: [] };
      }
      const { rows } = await db.query(
        `SELECT change::text AS change, fields, attempts::text AS attempts FROM ${table} WHERE change > $1::bigint ORDER BY change LIMIT ${pageSize}`,
        [cursor],
      );
      const entries: JournalEntry[] = [];
      for (const row of rows) {
        const entry = read(row);
        if (entry !== undefined) entries.push(entry);
      }
      return { cursor: rows.length === 0 ? cursor : String(rows.at(-1)!['change']), entries };
    },
    pollMs,
    (error) => {
      try {
        onError(error);
      } catch {
        // onError is the last place to report to.
      }
    },
  );

  return {
    migrate,
    schemaSql: () => ddl,
    async add(entry) {
      await migrate();
      const { fields, attempts } = entryText(entry);
      await db.query(
        `INSERT INTO ${table} (id, fields, attempts, event, status, reason, resource_id, verified) VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET fields = EXCLUDED.fields, attempts = EXCLUDED.attempts, event = EXCLUDED.event,
           status = EXCLUDED.status, reason = EXCLUDED.reason, resource_id = EXCLUDED.resource_id, verified = EXCLUDED.verified,
           change = ${nextChange}`,
        [
          entry.id,
          fields,
          attempts === '' ? '[]' : attempts,
          entry.event ?? null,
          entry.status,
          entry.reason ?? null,
          entry.resourceId ?? null,
          entry.verified === true,
        ],
      );
      // Each kind trimmed to its own bound: forged traffic never pushes out a genuine entry.
      const verified = entry.verified === true;
      await db.query(
        `DELETE FROM ${table} WHERE verified = $2 AND id <= (SELECT id FROM ${table} WHERE verified = $2 ORDER BY id DESC OFFSET $1 LIMIT 1)`,
        [verified ? max : maxUnverified, verified],
      );
    },
    async addAttempt(id, attempt) {
      await migrate();
      await db.query(`UPDATE ${table} SET attempts = attempts || jsonb_build_array($2::jsonb), change = ${nextChange} WHERE id = $1`, [
        id,
        JSON.stringify(attempt),
      ]);
    },
    async get(id) {
      await migrate();
      const { rows } = await db.query(`SELECT fields, attempts::text AS attempts FROM ${table} WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : read(rows[0]);
    },
    async list(query) {
      await migrate();
      const { rows } = await db.query(
        `SELECT fields, attempts::text AS attempts FROM ${table}
         WHERE ($1::text IS NULL OR id < $1) AND ($2::text IS NULL OR event = $2) AND ($3::int IS NULL OR status = $3)
           AND ($4::text IS NULL OR reason = $4) AND ($5::text IS NULL OR resource_id = $5)
         ORDER BY id DESC LIMIT ${listLimit(query)}`,
        [
          query?.before ?? null,
          query?.event ?? null,
          typeof query?.status === 'number' && Number.isSafeInteger(query.status) ? query.status : query?.status === undefined ? null : -1,
          query?.reason ?? null,
          query?.resource ?? null,
        ],
      );
      const entries: JournalEntry[] = [];
      for (const row of rows) {
        const entry = read(row);
        if (entry !== undefined) entries.push(entry);
      }
      return entries;
    },
    subscribe: (listener) => feed.subscribe(listener),
  };
}

/** Every option postgresJournal takes. */
const postgresJournalOptionNames = optionNames<PostgresJournalOptions>()([
  'db',
  'max',
  'maxUnverified',
  'table',
  'schema',
  'pollMs',
  'onError',
  'logger',
]);
