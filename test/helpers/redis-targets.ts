import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

export type RedisTargetName = 'single' | 'cluster';

/** Where a Redis suite runs: one server, or a real 3-master Cluster through an ioredis `Cluster`. */
export interface RedisTarget {
  readonly name: RedisTargetName;
  /** A shared client, closed after the file. */
  readonly client: Redis | Cluster;
  /** The CLI's form of the address (`redis://…` or `redis+cluster://…`). */
  readonly url: string;
  /** Another client of its own (as another process would have), closed after the file. */
  connect(): Redis | Cluster;
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
  let server: RedisServer | undefined;
  let cluster: RedisCluster | undefined;
  const clients: (Redis | Cluster)[] = [];
  const targets = new Map<RedisTargetName, RedisTarget>();

  beforeAll(async () => {
    [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
    const single = server;
    const nodes = cluster.nodes;
    const open = (make: () => Redis | Cluster) => {
      const client = make();
      clients.push(client);
      return client;
    };
    const masters = (client: Redis | Cluster): Redis[] => (client instanceof Cluster ? client.nodes('master') : [client]);
    const target = (name: RedisTargetName, url: string, make: () => Redis | Cluster): RedisTarget => {
      const client = open(make);
      return {
        name,
        client,
        url,
        connect: () => open(make),
        keys: async (pattern) => (await Promise.all(masters(client).map((node) => node.keys(pattern)))).flat(),
        flushScripts: async () => void (await Promise.all(masters(client).map((node) => node.script('FLUSH')))),
        flush: async () => void (await Promise.all(masters(client).map((node) => node.flushall()))),
      };
    };
    targets.set('single', target('single', single.url, () => new Redis(single.url)));
    const clusterTarget = target('cluster', cluster.url, () => new Cluster([...nodes]));
    // `nodes('master')` is empty until the Cluster client has read the slot map.
    await new Promise<void>((resolve) => (clusterTarget.client.status === 'ready' ? resolve() : clusterTarget.client.once('ready', () => resolve())));
    targets.set('cluster', clusterTarget);
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await Promise.all([server?.dispose(), cluster?.dispose()]);
  });

  return (name) => {
    const target = targets.get(name);
    if (!target) throw new Error(`redis target ${name} is not started (call inside a test)`);
    return target;
  };
}
