import type { Redis } from 'ioredis';
import type pg from 'pg';
import { describe, expectTypeOf, it } from 'vitest';
import { createReceiver, type PaymentBook } from '../../src/index.js';
import { bookSchemaSql, postgresInbox, postgresPaymentBook, type PostgresPaymentBook } from '../../src/postgres/index.js';
import { redisDedupeStore, redisPaymentBook, type RedisPaymentBook } from '../../src/redis/index.js';

declare const client: Redis;
declare const pool: pg.Pool;

describe('the shared payment books', () => {
  it('redisPaymentBook is a PaymentBook on an ioredis client', () => {
    const book = redisPaymentBook({ client, prefix: 'shop:{book}:', retentionMs: 0, releaseLeaseMs: 60_000 });
    expectTypeOf(book).toEqualTypeOf<RedisPaymentBook>();
    expectTypeOf(book).toMatchTypeOf<PaymentBook>();
    createReceiver({ secret: 's', store: redisDedupeStore({ client, prefix: 'shop:{book}:dedupe:' }), book });
    // @ts-expect-error a client is required
    redisPaymentBook({ prefix: 'x:{book}:' });
    // @ts-expect-error the retention is a number of milliseconds
    redisPaymentBook({ client, retentionMs: '90d' });
  });

  it('postgresPaymentBook is a PaymentBook with its migration, and takes the inbox it commits with', () => {
    const inbox = postgresInbox({ pool });
    const book = postgresPaymentBook({ db: pool, inbox, table: 'shop_book' });
    expectTypeOf(book).toEqualTypeOf<PostgresPaymentBook>();
    expectTypeOf(book.migrate()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(book.schemaSql()).toEqualTypeOf<string>();
    expectTypeOf(bookSchemaSql({ table: 'shop_book' })).toEqualTypeOf<string>();
    // @ts-expect-error the option is `db`
    postgresPaymentBook({ pool });
    // @ts-expect-error `inbox` is a postgresInbox()
    postgresPaymentBook({ db: pool, inbox: pool });
  });
});
