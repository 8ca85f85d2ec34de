import { memoryDedupeStore, type DedupeStore, type Logger } from '../../src/index.js';
import { memoryCursorStore, memoryWatchStore, type CursorStore, type WatchStore } from '../../src/reconcile/index.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';
import type { BookBackend } from './book-flags.js';
import { UsageError } from './cli-args.js';
import type { FlagHelp } from './command-help.js';
import { openPostgresInbox } from './postgres-pool.js';
import { closeClient, connectRedis, redisEnvHelp, redisFlags, redisFlagsHelp, redisUrlFrom, redisWaitFrom } from './redis-backend.js';

/** `--redis`, `--redis-wait` and `--postgres`: where both profiles of `pixhook reconcile` find what the app shares. */
export const reconcileBackendFlags = { ...redisFlags, postgres: { type: 'string' } } as const;

/** The help lines of those flags; `use` says what the app shares there (the watch list or the cursor, and dedupe). */
export function reconcileBackendHelp(use: string): FlagHelp[] {
  return [
    ...redisFlagsHelp(use),
    {
      flag: '--postgres <url>',
      meaning: `${use} in PostgreSQL (dedupe: the inbox, postgresInbox), and the payment book kept there (default: PIXHOOK_POSTGRES_URL)`,
    },
  ];
}

export const reconcileBackendEnvHelp = {
  ...redisEnvHelp,
  PIXHOOK_POSTGRES_URL: 'the PostgreSQL URL, when no --postgres (nor a Redis URL) is given',
};

/** What a reconcile run shares with the app: its dedupe store, the book's backend, and its watch list or cursors. */
export interface ReconcileBackend {
  /** `redis`, `postgres`, or undefined when everything is in this process. */
  kind: 'redis' | 'postgres' | undefined;
  store: DedupeStore;
  /** Where the book is kept: the same Redis or database. */
  backend: BookBackend;
  /** The gateway profile's watch list, under `prefix` (Redis key prefix or Postgres table prefix). */
  watchStore(prefix: string | undefined): Promise<WatchStore>;
  /** The API Pix profile's cursors, under `prefix`. */
  cursorStore(prefix: string | undefined): Promise<CursorStore>;
  close(): Promise<void>;
}

type BackendFlags = { redis?: string | undefined; 'redis-wait': string; postgres?: string | undefined };

/**
 * The backend the flags name, as `pixhook replay` picks it: `--redis` and `--postgres` exclude each other; a flag
 * wins over either variable; of the two variables, Redis. With neither, undefined.
 */
export function reconcileBackendUrl(values: BackendFlags): { redis: string } | { postgres: string } | undefined {
  if (values.redis !== undefined && values.postgres !== undefined) throw new UsageError('give --redis or --postgres, not both');
  if (values.postgres !== undefined) return { postgres: values.postgres };
  const redis = redisUrlFrom(values.redis, false);
  if (redis !== undefined) return { redis };
  const postgres = process.env['PIXHOOK_POSTGRES_URL'] || undefined;
  return postgres === undefined ? undefined : { postgres };
}

/** Opens what the URL names (nothing for none); a connection error is logged, its password masked. */
export async function openReconcileBackend(
  url: { redis: string } | { postgres: string } | undefined,
  values: BackendFlags,
  logger: Logger,
): Promise<ReconcileBackend> {
  if (url === undefined) {
    return {
      kind: undefined,
      store: memoryDedupeStore(),
      backend: undefined,
      watchStore: () => Promise.resolve(memoryWatchStore()),
      cursorStore: () => Promise.resolve(memoryCursorStore()),
      close: () => Promise.resolve(),
    };
  }
  if ('redis' in url) return openRedis(url.redis, redisWaitFrom(values['redis-wait']), logger);
  return openPostgres(url.postgres, logger);
}

async function openRedis(url: string, redisWait: number, logger: Logger): Promise<ReconcileBackend> {
  const { redisDedupeStore, redisWatchStore, redisCursorStore } = await import('../../src/redis/index.js');
  const client = await connectRedis(url, redisWait);
  client.on('error', (error: Error) =>
    logger.warn({ redis: redactedUrl(url), error: error.message }, 'pixhook reconcile: redis connection error'),
  );
  return {
    kind: 'redis',
    store: redisDedupeStore({ client }),
    backend: { redis: client },
    watchStore: async (prefix) => redisWatchStore({ client, ...(prefix !== undefined && { prefix }) }),
    cursorStore: async (prefix) => redisCursorStore({ client, ...(prefix !== undefined && { prefix }) }),
    close: () => closeClient(client),
  };
}

/**
 * The app's database: the inbox's store for dedupe (the one the app's receivers share, as `pixhook replay
 * --postgres` opens it), and the watch list or cursor tables, created if missing (idempotent). The book is
 * never created here (see book-presence.ts). Closing gives the inbox's connection back before `pool.end()`.
 */
async function openPostgres(url: string, logger: Logger): Promise<ReconcileBackend> {
  const { postgresWatchStore, postgresCursorStore } = await import('../../src/postgres/index.js');
  const { pool, store, close } = await openPostgresInbox(url, 'reconcile', logger);
  return {
    kind: 'postgres',
    store,
    backend: { pool },
    async watchStore(prefix) {
      const store = postgresWatchStore({ pool, ...(prefix !== undefined && { prefix }) });
      await store.migrate();
      return store;
    },
    async cursorStore(prefix) {
      const store = postgresCursorStore({ db: pool, ...(prefix !== undefined && { prefix }) });
      await store.migrate();
      return store;
    },
    close,
  };
}
