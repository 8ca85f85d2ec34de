import { describe, expect, it } from 'vitest';
import { joinedClaimOf } from '../../src/book/joined-claim.js';
import { memoryDedupeStore } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook } from '../../src/postgres/index.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { refundFactsOverHttp } from '../api-pix/refund-facts-scenario.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { freshTable, usePostgres } from '../postgres/use-postgres.js';
import { factIdentityScenarios } from './fact-identity-scenarios.js';

// Issue 36 §3 on the Redis (single) and Postgres books: the scenarios of fact-identity.test.ts, and the API Pix
// receiver over real HTTP.
const db = usePostgres();
let books = 0;

describe('every fact read right, on redisPaymentBook (single)', () => {
  const target = useRedisTarget('single');

  describe('with a Redis store on the same client: the claim and the book read in one script', () => {
    factIdentityScenarios(async () => {
      const prefix = `facts:{book${++books}}:`;
      const { client } = target();
      const book = redisPaymentBook({ client, prefix });
      let stores = 0;
      const store = () => redisDedupeStore({ client, prefix: `${prefix}d${++stores}:`, quarantine: false });
      expect(joinedClaimOf(store(), book)).toBeDefined();
      return { book, store };
    });
  });

  it('the API Pix receiver over HTTP: each devolução status runs, each Pix’s refund "1" runs, a refunded wrong amount is never released', async () => {
    const prefix = `facts:{book${++books}}:`;
    const { client } = target();
    await refundFactsOverHttp(
      redisPaymentBook({ client, prefix }),
      redisDedupeStore({ client, prefix: `${prefix}d:`, quarantine: false }),
      40,
    );
  });
});

describe('every fact read right, on postgresPaymentBook', () => {
  factIdentityScenarios(async () => {
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') });
    await book.migrate();
    return { book, store: () => memoryDedupeStore() };
  });

  it('the API Pix receiver over HTTP, in the inbox’s transaction: the same', async () => {
    const inbox = postgresInbox({ pool: db().pool, table: freshTable() });
    const book = postgresPaymentBook({ db: db().pool, inbox, table: freshTable('book') });
    await inbox.migrate();
    await book.migrate();
    try {
      await refundFactsOverHttp(book, inbox.store, 41);
    } finally {
      await inbox.close();
    }
  });
});
