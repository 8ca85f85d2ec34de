import type { SqlDatabase } from '../../src/postgres/index.js';
import { bookSchemaSql } from '../../src/postgres/book-schema.js';
import { inboxSchemaSql } from '../../src/postgres/inbox-schema.js';
import { postgresCursorStore, postgresJournal, postgresWatchStore } from '../../src/postgres/index.js';

/** A database that is never called: the stores below only build their DDL text from it. */
const noDatabase: SqlDatabase = {
  query: () => Promise.reject(new Error('pixhook postgres schema runs no query')),
  transaction: () => Promise.reject(new Error('pixhook postgres schema runs no query')),
  session: () => Promise.reject(new Error('pixhook postgres schema runs no query')),
};

/**
 * Every table pixhook/postgres uses, at the default names the library and the CLI read: the inbox (dedupe keys,
 * transactional effects and the order leases, which are rows of it), the payment book, the delivery journal, the
 * reconciler's watch list and the listing reconciler's cursors. Each part is idempotent DDL with a heading comment.
 */
export function allSchemasSql(options: { table?: string | undefined; schema?: string | undefined }): string {
  const { table, schema } = options;
  const inSchema = schema === undefined ? {} : { schema };
  const parts: [string, string][] = [
    [
      'inbox: dedupe keys, transactional effects and the order leases (postgresInbox)',
      inboxSchemaSql({ ...(table !== undefined && { table }), ...inSchema }),
    ],
    ['payment book (postgresPaymentBook)', bookSchemaSql(inSchema)],
    ['delivery journal (postgresJournal)', postgresJournal({ db: noDatabase, ...inSchema }).schemaSql()],
    ['reconciler watch list (postgresWatchStore; in the search_path)', postgresWatchStore({ pool: noDatabase }).schemaSql()],
    ['listing reconciler cursors (postgresCursorStore; in the search_path)', postgresCursorStore({ db: noDatabase }).schemaSql()],
  ];
  return parts.map(([title, sql]) => `-- ${title}\n${sql}`).join('\n\n');
}
