import { createHash } from 'node:crypto';

/** The ioredis shape pixhook uses (a `Redis` or a `Cluster`). */
export interface IoredisLikeClient {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** `'ready'` when commands can be sent now. */
  readonly status?: string;
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
export interface ScriptRunner {
  run(script: RedisScript, keys: string[], args: string[]): Promise<unknown>;
  /** False only when the client says it is not connected, so callers can fail fast. */
  ready(): boolean;
}

export function scriptRunner(client: RedisClientLike): ScriptRunner {
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
    ready: () => !(typeof client.status === 'string' && downStatuses.has(client.status)),
  };
}

// ioredis between connections; `connecting` is left out so a client still starting up queues its first calls.
const downStatuses = new Set(['reconnecting', 'close', 'end']);

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
