import type { DedupeStore } from '../src/dedupe/dedupe-store.js';
import type { Logger } from '../src/index.js';
import type { EventQueue } from '../src/index.js';
import type { Receiver } from '../src/index.js';
import { createDurableQueue, redisDedupeStore, startWorker, type DurableWorker } from '../src/redis/index.js';
import { UsageError } from './cli-args.js';

/** What `listen --redis` adds: the shared store, and for durable mode the queue and an in-process worker. */
export interface RedisBackend {
  store: DedupeStore;
  queue?: EventQueue;
  /** Starts the in-process worker (durable mode) on the receiver's handlers. */
  start(receiver: Receiver): Promise<void>;
  close(): Promise<void>;
}

export async function openRedisBackend(url: string, durable: boolean, logger: Logger): Promise<RedisBackend> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  client.on('error', (error: Error) => logger.warn({ error: error.message }, 'pixhook: redis connection error'));
  const queue = durable ? await createDurableQueue({ connection: url, logger }) : undefined;
  let worker: DurableWorker | undefined;
  return {
    store: redisDedupeStore({ client }),
    ...(queue && { queue }),
    async start(receiver) {
      if (durable) worker = await startWorker({ processing: receiver.processing, connection: url, logger });
    },
    async close() {
      await worker?.close();
      await queue?.close();
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** `--redis`, else `PIXHOOK_REDIS_URL`; `required` makes a missing one a usage error. */
export function redisUrlFrom(value: string | undefined, required: true): string;
export function redisUrlFrom(value: string | undefined, required: boolean): string | undefined;
export function redisUrlFrom(value: string | undefined, required: boolean): string | undefined {
  const url = value ?? (process.env['PIXHOOK_REDIS_URL'] || undefined);
  if (url === undefined) {
    if (required) throw new UsageError('a Redis URL is required: --redis <url> or PIXHOOK_REDIS_URL');
    return undefined;
  }
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--redis must be a redis:// or rediss:// URL, got "${redactedUrl(url)}"`);
  return url;
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  return url.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:***@');
}
