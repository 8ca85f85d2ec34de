import { checkIdentifier } from '../shared/option-checks.js';

export interface InboxTableOptions {
  /** Default `pixhook_inbox`. */
  table?: string;
  /** Default: none (the connection's `search_path`, usually `public`). */
  schema?: string;
}

/** The table's qualified, quoted name and the names derived from it. */
export interface InboxNames {
  /** `"schema"."table"`, quoted. */
  readonly table: string;
  readonly schema: string | undefined;
  readonly index: string;
  /** Prefix of every advisory-lock key, so two inboxes in one database never share a lock. */
  readonly lockSpace: string;
}

function checked(what: string, name: string): string {
  return checkIdentifier(what, name, 63);
}

export function inboxNames(options: InboxTableOptions = {}): InboxNames {
  const table = checked('table', options.table ?? 'pixhook_inbox');
  const schema = options.schema === undefined ? undefined : checked('schema', options.schema);
  const qualified = schema === undefined ? `"${table}"` : `"${schema}"."${table}"`;
  return {
    table: qualified,
    schema,
    index: `"${checked('table', `${table}_done_at`.slice(0, 63))}"`,
    lockSpace: `pixhook:${schema ?? ''}.${table}:`,
  };
}

/**
 * The inbox's DDL, for your own migration tool (`pixhook postgres schema` prints it). One row per
 * processed key and scope: `delivery` rows are the dedupe store's, the others are committed together
 * with a transactional handler's writes. Idempotent: safe to run again.
 */
export function inboxSchemaSql(options: InboxTableOptions = {}): string {
  const names = inboxNames(options);
  return [
    ...(names.schema === undefined ? [] : [`CREATE SCHEMA IF NOT EXISTS "${names.schema}";`]),
    `CREATE TABLE IF NOT EXISTS ${names.table} (`,
    `  scope      text        NOT NULL,  -- 'delivery' (dedupe store) or a transactional handler's scope ('effects')`,
    `  key        text        NOT NULL,  -- the event's dedupe key, e.g. transaction_paid:tx_123:paid:1990`,
    `  done_at    timestamptz NOT NULL DEFAULT now(),`,
    `  expires_at timestamptz NOT NULL,  -- after this a redelivery runs again; sweep() deletes old rows`,
    `  PRIMARY KEY (scope, key)`,
    `);`,
    `CREATE INDEX IF NOT EXISTS ${names.index} ON ${names.table} (done_at);`,
  ].join('\n');
}
