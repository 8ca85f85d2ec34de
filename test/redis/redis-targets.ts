import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

/** Where a Redis suite runs: one redis-server, or a real 3-master Redis Cluster. */
export interface RedisTargetKind {
  readonly name: 'a single server' | 'a Redis Cluster';
  readonly cluster: boolean;
}

export const redisTargetKinds: readonly RedisTargetKind[] = [
  { name: 'a single server', cluster: false },
  { name: 'a Redis Cluster', cluster: true },
];

export interface RedisTarget {
  readonly cluster: boolean;
  /** `redis://…` or `redis+cluster://…` (what pixhook's `connection` and the CLI take). */
  readonly url: string;
  /** A new ioredis client (a `Cluster` on the cluster); the caller disconnects it. */
  client(options?: { maxRetriesPerRequest?: number | null }): Redis | Cluster;
  /** The single server itself (absent on the cluster). */
  readonly server?: RedisServer;
  readonly redisCluster?: RedisCluster;
}

/** Starts the target in beforeAll and stops it in afterAll of the enclosing describe; returns an accessor. */
export function useRedisTarget(kind: RedisTargetKind): () => RedisTarget {
  let target: RedisTarget | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (kind.cluster) {
      const redisCluster = await startRedisCluster();
      stop = () => redisCluster.dispose();
      target = {
        cluster: true,
        url: redisCluster.url,
        redisCluster,
        client: (options = {}) =>
          new Cluster([...redisCluster.nodes], options.maxRetriesPerRequest === undefined ? {} : { redisOptions: { maxRetriesPerRequest: options.maxRetriesPerRequest } }),
      };
    } else {
      const server = await startRedisServer();
      stop = () => server.dispose();
      target = { cluster: false, url: server.url, server, client: (options = {}) => new Redis(server.url, options) };
    }
  });
  afterAll(async () => {
    await stop?.();
  });
  return () => {
    if (!target) throw new Error('the Redis target is not started yet (use it inside a test)');
    return target;
  };
}
