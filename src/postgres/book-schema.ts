import { checkIdentifier } from '../shared/option-checks.js';

export interface BookTableOptions {
  /** Prefix of the book's three tables (`<prefix>_resources`, `<prefix>_held`, `<prefix>_flags`). Default `pixhook_book`. */
  table?: string;
  /** Default: none (the connection's `search_path`). */
  schema?: string;
}

export interface BookNames {
  readonly resources: string;
  readonly held: string;
  readonly flags: string;
  readonly schema: string | undefined;
  readonly prefix: string;
  readonly lockSpace: string;
}

export function bookNames(options: BookTableOptions = {}): BookNames {
  const prefix = checkIdentifier('table', options.table ?? 'pixhook_book', 50);
  const schema = options.schema === undefined ? undefined : checkIdentifier('schema', options.schema, 63);
  const q = (name: string) => (schema === undefined ? `"${name}"` : `"${schema}"."${name}"`);
  return {
    resources: q(`${prefix}_resources`),
    held: q(`${prefix}_held`),
    flags: q(`${prefix}_flags`),
    schema,
    prefix,
    lockSpace: `pixhook-book:${schema ?? ''}.${prefix}:`,
  };
}

/** The book's DDL, for your own migration tool. Idempotent. */
export function bookSchemaSql(options: BookTableOptions = {}): string {
  const names = bookNames(options);
  return [
    ...(names.schema === undefined ? [] : [`CREATE SCHEMA IF NOT EXISTS "${names.schema}";`]),
    `CREATE TABLE IF NOT EXISTS ${names.resources} (`,
    `  key          text        PRIMARY KEY,  -- 't:' || charge id, or 'o:' || transfer id`,
    `  state        text,                     -- the resource as JSON (NULL until its first event)`,
    `  has_disputes boolean     NOT NULL DEFAULT false,`,
    `  updated_at   timestamptz NOT NULL DEFAULT now()`,
    `);`,
    `CREATE INDEX IF NOT EXISTS "${names.prefix}_resources_disputed" ON ${names.resources} (key) WHERE has_disputes;`,
    `CREATE TABLE IF NOT EXISTS ${names.held} (`,
    `  seq          bigserial   PRIMARY KEY,  -- oldest first`,
    `  held_id      text        NOT NULL UNIQUE,`,
    `  resource_key text        NOT NULL,`,
    `  dedupe_key   text        NOT NULL,`,
    `  state        text        NOT NULL,     -- held, releasing, released, dismissed`,
    `  owner        text,                     -- who is releasing it`,
    `  lease_until  bigint,                   -- epoch ms; a release past it is held again`,
    `  data         text        NOT NULL,     -- the held event as JSON`,
    `  closed_at    timestamptz`,
    `);`,
    `CREATE UNIQUE INDEX IF NOT EXISTS "${names.prefix}_held_open" ON ${names.held} (resource_key, dedupe_key) WHERE state IN ('held', 'releasing');`,
    `CREATE TABLE IF NOT EXISTS ${names.flags} (`,
    `  name  text PRIMARY KEY,  -- 'expecting': the book holds expectations`,
    `  value text NOT NULL`,
    `);`,
  ].join('\n');
}
