import type { DedupeStore, DeliveryJournal } from '../../src/index.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';
import { requirePackage } from './cli-args.js';
import { closeClient, connectRedis } from './redis-backend.js';
import { stderrLogger } from './stderr-logger.js';
import type { BookBackend } from './book-flags.js';

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
  const { default: pg } = await import('pg');
  const { postgresJournal, postgresInbox } = await import('../../src/postgres/index.js');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', (error: Error) => stderrLogger.warn({ error: error.message }, 'pixhook replay: postgres connection error'));
  const inbox = postgresInbox({ pool });
  await inbox.migrate();
  return {
    journal: postgresJournal({ db: pool }),
    store: inbox.store,
    backend: { pool },
    label: redactedUrl(url),
    close: async () => {
      await inbox.close();
      await pool.end();
    },
  };
}
