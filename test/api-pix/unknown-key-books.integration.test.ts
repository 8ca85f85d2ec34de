import { describe, expect, it } from 'vitest';
import { joinedClaimOf } from '../../src/book/joined-claim.js';
import { postgresInbox, postgresPaymentBook } from '../../src/postgres/index.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';
import { freshTable, usePostgres } from '../postgres/use-postgres.js';
import { heldForAnotherKey } from './unknown-key-scenario.js';

const targets = useRedisTargets();
const db = usePostgres();

describe.each(redisTargetNames)('unknown_key on the Redis book (%s), its claim joined with the dedupe store', (name) => {
  it('holds a Pix to another key (and to none), runs the merchant’s own, answers a batch 200, releases once', async () => {
    const { client } = targets(name);
    // One hash tag: the dedupe claim and the book's decision run in one script (the joined claim).
    const prefix = `test:{unknown-key-${name}}:`;
    const book = redisPaymentBook({ client, prefix });
    const store = redisDedupeStore({ client, prefix: `${prefix}dedupe:` });
    expect(joinedClaimOf(store, book)).toBeDefined();
    await heldForAnotherKey(book, store, 2);
  });
});

describe('unknown_key on the Postgres book, in the inbox’s transaction', () => {
  it('holds a Pix to another key (and to none), runs the merchant’s own, answers a batch 200, releases once', async () => {
    const inbox = postgresInbox({ pool: db().pool, table: freshTable() });
    const book = postgresPaymentBook({ db: db().pool, inbox, table: freshTable('book') });
    await inbox.migrate();
    await book.migrate();
    try {
      await heldForAnotherKey(book, inbox.store, 3);
    } finally {
      await inbox.close();
    }
  });
});
