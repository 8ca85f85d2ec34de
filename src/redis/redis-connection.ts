import type { ConnectionOptions } from 'bullmq';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { checkNumber, describeGiven } from '../shared/option-checks.js';
import { withTimeout } from '../shared/with-timeout.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { createRedisClient } from './redis-url.js';
import { redactedUrl } from '../shared/redacted-url.js';

/**
 * A Redis URL (`redis://127.0.0.1:6379`, or `redis+cluster://host:port,host:port` for a Cluster's
 * seed nodes), BullMQ connection options, or an ioredis `Redis` or `Cluster` pixhook will not close.
 */
export type RedisConnection = string | ConnectionOptions;

/** What BullMQ gets, and how to close what pixhook opened. */
export interface OpenedConnection {
  connection: ConnectionOptions;
  /** True on a Redis Cluster: every key of a queue must then share one hash slot. */
  cluster: boolean;
  /** Where it points, without a password, for messages. */
  label: string;
  /** Closes what pixhook opened, at once (a silent Redis cannot hold it open); a user's client is left alone. */
  close(): Promise<void>;
}

const defaultConnectTimeoutMs = 10_000;

/** How long creating a queue or a worker waits for Redis: an integer from 100 ms to 5 minutes. */
export function checkConnectTimeoutMs(name: string, value: unknown): number {
  if (value === undefined) return defaultConnectTimeoutMs;
  return checkNumber(name, value, { min: 100, max: 5 * 60 * 1000, note: '(5 minutes)' });
}

/**
 * Producers fail fast while Redis is down (the receiver answers 503 and the sender retries);
 * workers wait for it (BullMQ's blocking calls need `maxRetriesPerRequest: null`, on a Cluster's nodes too).
 */
export async function openConnection(connection: RedisConnection, role: 'producer' | 'worker'): Promise<OpenedConnection> {
  const roleOptions: RedisOptions = role === 'producer' ? { enableOfflineQueue: false } : { maxRetriesPerRequest: null };
  if (typeof connection !== 'string' && (typeof connection !== 'object' || connection === null))
    throw new PixhookConfigError(
      `pixhook: \`connection\` must be a Redis URL, connection options or an ioredis client, got ${describeGiven(connection)}.`,
    );
  if (typeof connection === 'string') {
    const client = await createRedisClient(connection, roleOptions, 'connection');
    // BullMQ re-emits connection errors on the queue/worker, which log them; this only keeps ioredis quiet.
    client.on('error', () => {});
    return {
      connection: client as ConnectionOptions,
      cluster: isCluster(client),
      label: redactedUrl(connection),
      close: async () => client.disconnect(),
    };
  }
  if (isClient(connection)) {
    if (role === 'worker') refuseRetryingClient(connection);
    const cluster = isCluster(connection);
    return { connection, cluster, label: cluster ? 'the Redis Cluster client given' : 'the Redis client given', close: async () => {} };
  }
  // Options: pixhook opens the client itself, so it can wait for it within a bound and close it.
  const options = connection as RedisOptions;
  const { Redis: RedisClient } = await import('ioredis');
  const client = new RedisClient({ ...options, ...roleOptions });
  client.on('error', () => {});
  return {
    connection: client as ConnectionOptions,
    cluster: false,
    label: `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`,
    close: async () => client.disconnect(),
  };
}

/**
 * Resolves once the client is connected and has answered a command, with its `INFO cluster` text
 * (empty where INFO is refused). Never waits past `timeoutMs`: the caller closes what it opened.
 */
export async function answeredWithin(opened: OpenedConnection, timeoutMs: number): Promise<string> {
  const client = opened.connection as Redis | Cluster;
  const deadline = Date.now() + timeoutMs;
  await withTimeout(whenReady(client), timeoutMs, 'connecting to Redis');
  try {
    return String(await withTimeout(client.info('cluster'), Math.max(1, deadline - Date.now()), 'asking Redis'));
  } catch (error) {
    if (error instanceof Error && error.name === 'PixhookTimeoutError') throw error;
    return '';
  }
}

function whenReady(client: Redis | Cluster): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  if (client.status === 'wait') return client.connect();
  return new Promise<void>((resolve, reject) => {
    let lastError: unknown;
    const onError = (error: unknown) => void (lastError = error);
    const settle = (error?: unknown) => {
      client.off('ready', onReady);
      client.off('end', onEnd);
      client.off('error', onError);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onReady = () => settle();
    const onEnd = () => settle(lastError ?? new Error('the connection was closed'));
    client.on('ready', onReady);
    client.on('end', onEnd);
    client.on('error', onError);
  });
}

/** The error a queue or a worker rejects with when Redis did not answer in time, or refused. */
export function redisUnavailable(label: string, timeoutMs: number, cause: unknown): RedisUnavailableError {
  const why = cause instanceof Error && !/took longer than/.test(cause.message) ? ` (last error: ${cause.message.slice(0, 200)})` : '';
  return new RedisUnavailableError(`Redis at ${label} did not answer within ${timeoutMs} ms${why}`);
}

function isClient(connection: ConnectionOptions): connection is Redis | Cluster {
  return typeof (connection as Partial<Redis>).duplicate === 'function';
}

function isCluster(client: Redis | Cluster): client is Cluster {
  return (client as Partial<Cluster>).isCluster === true;
}

// BullMQ throws a bare Error for this on a Redis client and says nothing on a Cluster, whose nodes would then give up
// on the worker's blocking reads after 20 reconnections: say what to pass instead.
function refuseRetryingClient(client: Redis | Cluster): void {
  const options = isCluster(client) ? client.options.redisOptions : client.options;
  const retries = options?.maxRetriesPerRequest;
  if (retries !== undefined && retries !== null) {
    const where = isCluster(client)
      ? 'new Redis.Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } })'
      : 'new Redis(url, { maxRetriesPerRequest: null })';
    throw new PixhookConfigError(
      `pixhook: \`connection\` must be created with \`maxRetriesPerRequest: null\` for a worker (${where}), got ${String(retries)}; or pass a URL and pixhook opens it.`,
    );
  }
}
