import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { DedupeStore } from '../../src/dedupe/dedupe-store.js';
import type { Logger } from '../../src/index.js';
import type { EventQueue, QueuedEvent } from '../../src/index.js';
import type { Receiver } from '../../src/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createDurableQueue, redisDedupeStore, startWorker, type DurableQueue, type DurableWorker } from '../../src/redis/index.js';
import { createRedisClient, parseRedisUrl } from '../../src/redis/redis-url.js';
import { CommandFailure, requirePackage, UsageError } from './cli-args.js';
import type { FlagHelp } from './command-help.js';
import { redisWaitFrom, waitForRedis } from './wait-for-redis.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';

/** `--redis <url>` and `--redis-wait <duration>`, for every command that talks to Redis. */
export const redisFlags = {
  redis: { type: 'string' },
  'redis-wait': { type: 'string', default: '30s' },
} as const;

/** The help lines of `--redis` and `--redis-wait`. */
export function redisFlagsHelp(use: string): FlagHelp[] {
  return [
    { flag: '--redis <url>', meaning: `${use}: ${redisUrlForms} (default: PIXHOOK_REDIS_URL)` },
    { flag: '--redis-wait <d>', meaning: 'how long to wait for Redis to answer, 0–24h, e.g. 30s, 2m; then exit 1 (default 30s)' },
  ];
}
export const redisEnvHelp = { PIXHOOK_REDIS_URL: 'the Redis URL, when no --redis is given' };

/** The URL forms, said in every usage text. */
const redisUrlForms =
  'redis://[:password@]host:6379[/db], rediss:// (TLS), or a Cluster by its seed nodes: redis+cluster://host:port,host:port (rediss+cluster:// for TLS)';

/** How long closing may take before the connections are dropped: a Redis that went silent must not hold the process. */
const closeWithinMs = 2_000;

/** What `listen --redis` adds: the shared store, and for durable mode the queue and (with `--handlers`) an in-process worker. */
interface RedisBackend {
  store: DedupeStore;
  queue?: EventQueue;
  /** Starts the in-process worker on the receiver's handlers (durable mode, only when `--handlers` registered some). */
  start(receiver: Receiver): Promise<void>;
  close(): Promise<void>;
}

/** Opens the store's client (and the queue in durable mode); a failure part-way closes what was opened. */
export async function openRedisBackend(
  url: string,
  durable: { worker: boolean; onQueued: (job: QueuedEvent) => void } | undefined,
  logger: Logger,
  waitMs: number,
): Promise<RedisBackend> {
  if (durable) requirePackage('bullmq');
  const client = await createRedisClient(url, { disconnectTimeout: 100 });
  client.on('error', (error: Error) => logger.warn({ error: error.message }, 'pixhook: redis connection error'));
  let queue: DurableQueue | undefined;
  let worker: DurableWorker | undefined;
  const close = async () => {
    await closeWithin(() => worker?.close());
    await closeWithin(() => queue?.close());
    await closeClient(client);
  };
  try {
    if (durable) queue = await withinRedisWait(createDurableQueue({ connection: url, logger }), url, waitMs, 'the durable queue');
  } catch (error) {
    await close();
    throw error;
  }
  return {
    store: redisDedupeStore({ client }),
    ...(queue && { queue: printing(queue, durable!.onQueued) }),
    async start(receiver) {
      if (durable?.worker === true)
        worker = await withinRedisWait(
          startWorker({ processing: internalsOf(receiver).processing, connection: url, logger }),
          url,
          waitMs,
          'the worker',
        );
    },
    close,
  };
}

/** The queue, telling `onQueued` about each job once it is queued, not a duplicate (never failing the enqueue for it). */
function printing(queue: EventQueue, onQueued: (job: QueuedEvent) => void): EventQueue {
  return {
    ...(queue.claims === true && { claims: true }),
    async enqueue(job) {
      const answer = await queue.enqueue(job);
      if (answer === 'duplicate') return answer;
      try {
        onQueued(job);
      } catch {
        // A closed stdout must not turn a queued job into a failed delivery.
      }
      return undefined;
    },
  };
}

/**
 * The client of a command that talks to Redis: waits for it first (bounded by `--redis-wait`), then
 * opens a `Redis` or, for `redis+cluster://`, a `Cluster`. Every call is bounded by `commandTimeout`.
 */
export async function connectRedis(url: string, waitMs: number, options: RedisOptions = {}): Promise<Redis | Cluster> {
  await waitForRedis(url, waitMs);
  const client = await createRedisClient(url, { maxRetriesPerRequest: 2, commandTimeout: 10_000, disconnectTimeout: 100, ...options });
  client.on('error', () => {});
  return client;
}

/** QUIT, or the connection dropped when Redis does not answer it. */
export async function closeClient(client: Redis | Cluster): Promise<void> {
  await closeWithin(() => client.quit());
  client.disconnect();
}

/** Runs a close within `closeWithinMs`; its failure or its hang never blocks the command's exit. */
export async function closeWithin(close: () => Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.resolve()
      .then(close)
      .catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, closeWithinMs);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * A library call that talks to Redis, bounded by `--redis-wait` (at least 5 s): after `waitForRedis`
 * it should be quick, and a hang becomes one line and exit 1 instead of a process that never ends.
 */
export async function withinRedisWait<T>(promise: Promise<T>, url: string, waitMs: number, what: string): Promise<T> {
  const boundMs = Math.max(5_000, waitMs);
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CommandFailure(
            'redis_unavailable',
            `Redis at ${redactedUrl(url)} did not answer within ${boundMs / 1_000} s (${what} could not start)`,
          ),
        ),
      boundMs,
    );
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
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
  try {
    parseRedisUrl(url, '--redis');
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^pixhook: /, ''));
  }
  return url;
}

export { redisWaitFrom };
