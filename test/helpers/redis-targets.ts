import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

export type RedisTargetName = 'single' | 'cluster';

/** Where a Redis suite runs: one redis-server, or a real 3-master Redis Cluster through an ioredis `Cluster`. */
export interface RedisTarget {
  readonly name: RedisTargetName;
  /** A shared client, closed after the file (or the describe that started the target). */
  readonly client: Redis | Cluster;
  /** `redis://…` or `redis+cluster://…`: what pixhook's `connection` and the CLI take. */
  readonly url: string;
  /** The single server itself (absent on the cluster). */
  readonly server?: RedisServer;
  readonly redisCluster?: RedisCluster;
  /** Another client of its own (as another process would have), closed with the target; disconnecting it first is fine. */
  connect(options?: { maxRetriesPerRequest?: number | null }): Redis | Cluster;
  /** Every key matching `pattern`, on every master. */
  keys(pattern: string): Promise<string[]>;
  /** `SCRIPT FLUSH` on every master. */
  flushScripts(): Promise<void>;
  /** `FLUSHALL` on every master. */
  flush(): Promise<void>;
}

export const redisTargetNames: readonly RedisTargetName[] = ['single', 'cluster'];

/**
 * Starts one redis-server and one Cluster for the test file (beforeAll) and stops both (afterAll).
 * Use with `describe.each(redisTargetNames)` so every test runs on both.
 */
export function useRedisTargets(): (name: RedisTargetName) => RedisTarget {
  const started = new Map<RedisTargetName, StartedTarget>();
  beforeAll(async () => {
    const [single, cluster] = await Promise.all(redisTargetNames.map(startTarget));
    started.set('single', single!).set('cluster', cluster!);
  }, 60_000);
  afterAll(() => Promise.all([...started.values()].map((target) => target.stop())));
  return (name) => {
    const target = started.get(name);
    if (!target) throw new Error(`redis target ${name} is not started (call inside a test)`);
    return target.target;
  };
}

/** Starts one target in the enclosing describe's beforeAll and stops it in its afterAll (inside a `describe.each(redisTargetNames)`). */
export function useRedisTarget(name: RedisTargetName): () => RedisTarget {
  let started: StartedTarget | undefined;
  beforeAll(async () => {
    started = await startTarget(name);
  }, 60_000);
  afterAll(() => started?.stop());
  return () => {
    if (!started) throw new Error(`redis target ${name} is not started (call inside a test)`);
    return started.target;
  };
}

interface StartedTarget {
  target: RedisTarget;
  stop(): Promise<void>;
}

async function startTarget(name: RedisTargetName): Promise<StartedTarget> {
  const clients: (Redis | Cluster)[] = [];
  const open = (client: Redis | Cluster) => {
    clients.push(client);
    return client;
  };
  let target: RedisTarget;
  let dispose: () => Promise<void>;
  if (name === 'single') {
    const server = await startRedisServer();
    dispose = () => server.dispose();
    const connect = (options: { maxRetriesPerRequest?: number | null } = {}) => open(new Redis(server.url, options));
    target = { ...commands(name, connect()), url: server.url, server, connect };
  } else {
    const redisCluster = await startRedisCluster();
    dispose = () => redisCluster.dispose();
    const connect = (options: { maxRetriesPerRequest?: number | null } = {}) =>
      open(
        new Cluster(
          [...redisCluster.nodes],
          options.maxRetriesPerRequest === undefined ? {} : { redisOptions: { maxRetriesPerRequest: options.maxRetriesPerRequest } },
        ),
      );
    target = { ...commands(name, connect()), url: redisCluster.url, redisCluster, connect };
    // `nodes('master')` is empty until the Cluster client has read the slot map.
    const client = target.client;
    await new Promise<void>((resolve) => (client.status === 'ready' ? resolve() : client.once('ready', () => resolve())));
  }
  return {
    target,
    stop: async () => {
      for (const client of clients) client.disconnect();
      await dispose();
    },
  };
}

function commands(
  name: RedisTargetName,
  client: Redis | Cluster,
): Pick<RedisTarget, 'name' | 'client' | 'keys' | 'flushScripts' | 'flush'> {
  const masters = (): Redis[] => (client instanceof Cluster ? client.nodes('master') : [client]);
  return {
    name,
    client,
    keys: async (pattern) => (await Promise.all(masters().map((node) => node.keys(pattern)))).flat(),
    flushScripts: async () => void (await Promise.all(masters().map((node) => node.script('FLUSH')))),
    flush: async () => void (await Promise.all(masters().map((node) => node.flushall()))),
  };
}
