// The Postgres setups of the applied-on-success properties: one PostgreSQL for the file (its beforeAll/afterAll), and
// per plan a fresh book table, with or without an inbox (its table, its store, the book's transaction).
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { memoryDedupeStore, type DedupeStore } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import type { Setup } from './applied-on-success-model.js';

export interface PostgresSetup {
  setup: Setup;
  /** What another process needs to open the same book (and inbox): the kill property's child. */
  env: Record<string, string>;
}

/** Starts PostgreSQL for the file; returns a maker of fresh setups (the instances of one share the store object). */
export function usePostgresSetups(label: string): (withInbox: boolean) => Promise<PostgresSetup> {
  let postgres: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  const inboxes: PostgresInbox[] = [];
  let tables = 0;
  beforeAll(async () => {
    postgres = await startPostgresServer();
    pool = new pg.Pool({ connectionString: postgres.url, max: 20 });
    pool.on('error', () => {});
  }, 60_000);
  afterAll(async () => {
    await Promise.all(inboxes.map((inbox) => inbox.close()));
    await pool?.end();
    await postgres?.dispose();
  }, 60_000);
  return async (withInbox) => {
    const table = `${label}_${process.pid}_${++tables}`;
    let store: DedupeStore = memoryDedupeStore();
    let inbox: PostgresInbox | undefined;
    if (withInbox) {
      inbox = postgresInbox({ pool: pool!, table: table + '_inbox' });
      inboxes.push(inbox);
      await inbox.migrate();
      store = inbox.store;
    }
    const book = postgresPaymentBook({ db: pool!, table: table + '_book', ...(inbox !== undefined && { inbox }) });
    await book.migrate();
    const env = {
      BACKEND: 'postgres',
      PG_URL: postgres!.url,
      BOOK_TABLE: table + '_book',
      ...(withInbox && { INBOX_TABLE: table + '_inbox' }),
    };
    return { setup: { book, store: () => store }, env };
  };
}
