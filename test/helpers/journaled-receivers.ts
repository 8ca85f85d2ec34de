import type pg from 'pg';
import { createReceiver, type PaymentBook, type Receiver } from '../../src/index.js';
import { postgresInbox, postgresJournal, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { redisDedupeStore, redisJournal, redisPaymentBook, type RedisClientLike } from '../../src/redis/index.js';

/**
 * A receiver whose deliveries the CLI can replay: journaled, deduped and booked on Postgres (the inbox's
 * store; the book and inbox migrated), with a no-op `transaction_paid` handler.
 */
export async function postgresJournaledReceiver(
  pool: pg.Pool,
  secret: string,
): Promise<{ receiver: Receiver; book: PaymentBook; inbox: PostgresInbox }> {
  const inbox = postgresInbox({ pool });
  await inbox.migrate();
  const book = postgresPaymentBook({ db: pool });
  await book.migrate();
  const receiver = createReceiver({ secret, journal: postgresJournal({ db: pool }), store: inbox.store, book }).on(
    'transaction_paid',
    () => undefined,
  );
  return { receiver, book, inbox };
}

/** The same on Redis; `onPaid` is the `transaction_paid` handler (a no-op by default). */
export function redisJournaledReceiver(
  client: RedisClientLike,
  secret: string,
  onPaid: () => void = () => undefined,
): { receiver: Receiver; book: PaymentBook } {
  const book = redisPaymentBook({ client });
  const receiver = createReceiver({ secret, journal: redisJournal({ client }), store: redisDedupeStore({ client }), book }).on(
    'transaction_paid',
    onPaid,
  );
  return { receiver, book };
}
