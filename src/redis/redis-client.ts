import { createHash } from 'node:crypto';
import { PixhookConfigError } from '../shared/pixhook-error.js';

/** The ioredis shape pixhook uses (a `Redis` or a `Cluster`). */
export interface IoredisLikeClient {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** `'ready'` when commands can be sent now. Required: it is how an ioredis client is told from a REST client. */
  readonly status: string;
}

/** The node-redis (v4/v5) shape pixhook uses. */
export interface NodeRedisLikeClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  readonly isReady?: boolean;
}

/** An ioredis or node-redis client. */
export type RedisClientLike = IoredisLikeClient | NodeRedisLikeClient;

/** A Lua script and its SHA1, so calls are `EVALSHA` (one round trip) with an `EVAL` fallback. */
export interface RedisScript {
  readonly source: string;
  readonly sha: string;
}

export function defineScript(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** What the store needs from either client: run a script, and say whether the connection is up. */
interface ScriptRunner {
  run(script: RedisScript, keys: string[], args: string[]): Promise<unknown>;
  /** False only when the client says it is not connected, so callers can fail fast. */
  ready(): boolean;
}

/** What every Redis store says when handed a client it cannot drive. */
const whichClientsWork =
  'pass an ioredis `Redis` or `Cluster` (`new Redis(url)`, `new Redis.Cluster(nodes)`) or a connected node-redis client (v4/v5)';

/**
 * Refuses, at construction, a client pixhook cannot run its scripts on: null, a plain object, or a
 * REST client such as `@upstash/redis`, whose `eval(script, keys[], args[])` takes arrays, not a key count.
 */
function checkRedisClient(client: unknown, option = 'client'): asserts client is RedisClientLike {
  if (typeof client !== 'object' || client === null) {
    throw new PixhookConfigError(
      `pixhook: \`${option}\` must be a Redis client; ${whichClientsWork}. Got ${client === null ? 'null' : typeof client}.`,
    );
  }
  const shape = client as Record<string, unknown>;
  if (typeof shape['eval'] !== 'function' || (typeof shape['evalsha'] !== 'function' && typeof shape['evalSha'] !== 'function')) {
    throw new PixhookConfigError(`pixhook: \`${option}\` must be a Redis client with \`eval\` and \`evalsha\`; ${whichClientsWork}.`);
  }
  // ioredis's `Redis` and `Cluster` both carry a connection `status`; a REST client has none and no connection to report.
  if (!isNodeRedis(client as RedisClientLike) && typeof shape['status'] !== 'string') {
    throw new PixhookConfigError(
      `pixhook: \`${option}\` looks like a REST client (such as @upstash/redis: \`eval\` without a connection \`status\`), which cannot run pixhook's scripts; ${whichClientsWork}, with the service's rediss:// URL.`,
    );
  }
}

/** True for an ioredis `Cluster` (`isCluster`) or a node-redis cluster (its `masters` and `slots` lists). */
export function isClusterClient(client: RedisClientLike): boolean {
  const shape = client as unknown as Record<string, unknown>;
  return shape['isCluster'] === true || (Array.isArray(shape['masters']) && Array.isArray(shape['slots']));
}

/**
 * True when every key `prefix + suffix` hashes to one Cluster slot: the prefix holds a non-empty
 * `{hash tag}` (Redis hashes only what is between the first `{` and the next `}`).
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  if (open === -1) return false;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1;
}

/**
 * A store whose one script touches several keys needs them in one slot. On a Cluster, refuses a
 * prefix without a hash tag (the default prefixes carry one), with the fix in the message.
 */
export function checkClusterPrefix(client: RedisClientLike, prefix: string, store: string, example: string): void {
  if (!isClusterClient(client) || hasHashTag(prefix)) return;
  throw new PixhookConfigError(
    `pixhook: \`prefix\` of the ${store} must carry a {hash tag} on a Redis Cluster, got ${JSON.stringify(prefix)}: its scripts touch several keys, which must share one slot. Use a prefix with a {hash tag}, such as ${JSON.stringify(example)}.`,
  );
}

export function scriptRunner(client: RedisClientLike): ScriptRunner {
  checkRedisClient(client);
  if (isNodeRedis(client)) {
    return {
      run: (script, keys, args) =>
        withLoadFallback(
          () => client.evalSha(script.sha, { keys, arguments: args }),
          () => client.eval(script.source, { keys, arguments: args }),
        ),
      ready: () => client.isReady !== false,
    };
  }
  return {
    run: (script, keys, args) =>
      withLoadFallback(
        () => client.evalsha(script.sha, keys.length, ...keys, ...args),
        () => client.eval(script.source, keys.length, ...keys, ...args),
      ),
    ready: () => ioredisReady(client),
  };
}

// ioredis between connections. `connecting` is down too once the client is reconnecting (`retryAttempts` > 0: it
// lost a connection and has not had one since); a client still starting up queues its first calls.
const downStatuses = new Set(['reconnecting', 'close', 'end']);

function ioredisReady(client: IoredisLikeClient): boolean {
  if (downStatuses.has(client.status)) return false;
  const attempts = (client as unknown as { retryAttempts?: unknown }).retryAttempts;
  return !(client.status === 'connecting' && typeof attempts === 'number' && attempts > 0);
}

function isNodeRedis(client: RedisClientLike): client is NodeRedisLikeClient {
  return typeof (client as Partial<NodeRedisLikeClient>).evalSha === 'function';
}

// A fresh server (or a `SCRIPT FLUSH`) has no cached script: load it once with EVAL, then EVALSHA again.
async function withLoadFallback(bySha: () => Promise<unknown>, bySource: () => Promise<unknown>): Promise<unknown> {
  try {
    return await bySha();
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return bySource();
    throw error;
  }
}
