import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';
import type { PaymentBook } from '../../src/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { UsageError } from './cli-args.js';
import { checkPostgresBook, warnIfRedisBookEmpty } from './book-presence.js';
import type { FlagHelp } from './command-help.js';

/** `--book-prefix` and `--no-book`, for every command that runs handlers on a shared backend (replay, reconcile, worker). */
export const bookFlags = {
  'book-prefix': { type: 'string' },
  'no-book': { type: 'boolean', default: false },
} as const;

export const bookFlagsHelp: FlagHelp[] = [
  {
    flag: '--book-prefix <p>',
    meaning:
      'the payment book the handlers run behind, never created here (on Postgres its tables not found exits 2; on Redis an empty book warns once): its key prefix on Redis or its table prefix on Postgres (default pixhook:{book}: on Redis, pixhook_book on Postgres)',
  },
  { flag: '--no-book', meaning: 'run the handlers without the payment book (warns once): what it held or applied is not checked' },
];

/** Where the book is kept: the command's Redis client or Postgres pool; none for a command on memory only. */
export type BookBackend = { redis: Redis | Cluster } | { pool: pg.Pool } | undefined;

/**
 * The payment book kept at the backend the command was given, so its handlers pass the same door as the
 * webhook's: a payment already applied is a `duplicate`, a held one stays held. `--no-book` runs without it
 * and says so once, on stderr.
 */
export async function bookFrom(
  command: string,
  values: { 'book-prefix'?: string | undefined; 'no-book': boolean },
  backend: BookBackend,
): Promise<PaymentBook | undefined> {
  if (values['no-book']) {
    if (values['book-prefix'] !== undefined) throw new UsageError('give --book-prefix or --no-book, not both');
    process.stderr.write(
      `pixhook ${command}: --no-book: the handlers run without the payment book, so a payment it held or already applied runs\n`,
    );
    return undefined;
  }
  if (backend === undefined) {
    if (values['book-prefix'] !== undefined)
      throw new UsageError('--book-prefix needs the backend the book is kept on: --redis or --postgres');
    return undefined;
  }
  const prefix = values['book-prefix'];
  if ('redis' in backend) {
    const { redisPaymentBook } = await import('../../src/redis/index.js');
    const book = redisPaymentBook({
      client: backend.redis,
      ...(prefix !== undefined && { prefix }),
      timeoutMs: 10_000,
      logger: silentLogger,
    });
    await warnIfRedisBookEmpty(command, backend.redis, prefix ?? 'pixhook:{book}:');
    return book;
  }
  const { postgresPaymentBook } = await import('../../src/postgres/index.js');
  // Constructed first: it refuses a prefix that is not an identifier. Never migrated here: see book-presence.ts.
  const book = postgresPaymentBook({ db: backend.pool, ...(prefix !== undefined && { table: prefix }) });
  await checkPostgresBook(backend.pool, prefix ?? 'pixhook_book');
  return book;
}
