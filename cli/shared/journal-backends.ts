import type { DedupeStore, DeliveryJournal } from '../../src/index.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';
import { requirePackage } from './cli-args.js';
import { closeClient, connectRedis } from './redis-backend.js';
import { stderrLogger } from './stderr-logger.js';
import type { BookBackend } from './book-flags.js';
import { openPostgresInbox } from './postgres-pool.js';

/** The journal and the dedupe store receivers share, as `pixhook replay` and `pixhook resend` open them. */
export interface Shared {
  journal: DeliveryJournal;
  store: DedupeStore;
  /** Where the book is kept: the same Redis or database. */
  backend: BookBackend;
  label: string;
  close(): Promise<void>;
}

export async function redisShared(url: string): Promise<Shared> {
  requirePackage('ioredis');
  const { redisJournal, redisDedupeStore } = await import('../../src/redis/index.js');
  const client = await connectRedis(url, 30_000);
  return {
    journal: redisJournal({ client, logger: stderrLogger }),
    store: redisDedupeStore({ client, quarantine: false }),
    backend: { redis: client },
    label: redactedUrl(url),
    close: () => closeClient(client),
  };
}

export async function postgresShared(url: string): Promise<Shared> {
  const { postgresJournal } = await import('../../src/postgres/index.js');
  const { pool, store, close } = await openPostgresInbox(url, 'replay');
  return {
    journal: postgresJournal({ db: pool }),
    store,
    backend: { pool },
    label: redactedUrl(url),
    close,
  };
}
