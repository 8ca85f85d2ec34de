import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { memoryWatchStore, type WatchStore } from '../../src/reconcile/index.js';
import { redisWatchStore } from '../../src/redis/index.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { postgresWatchStore } from '../../src/postgres/index.js';
import { usePostgres } from '../postgres/use-postgres.js';

const pg = usePostgres();
const pgStores: Promise<unknown>[] = [];

let server: RedisServer;
let cluster: RedisCluster;
const clients: (Redis | Cluster)[] = [];
beforeAll(async () => {
  [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
}, 60_000);
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all([server.dispose(), cluster.dispose()]);
});

const connect = (kind: 'redis' | 'redis-cluster'): Redis | Cluster => {
  const client = kind === 'redis' ? new Redis(server.url) : new Cluster([...cluster.nodes]);
  clients.push(client);
  return client;
};
// Two connections, as two processes would have; the prefix's {hash tag} keeps every key in one Cluster slot.
const redisPair = (kind: 'redis' | 'redis-cluster', prefix = `test:{${++prefixSeq}}:`) => {
  const [one, two] = [connect(kind), connect(kind)];
  return { a: redisWatchStore({ client: one, prefix, now: () => t0 }), b: redisWatchStore({ client: two, prefix, now: () => t0 }) };
};

let prefixSeq = 0;
const stores: Record<string, () => { a: WatchStore; b: WatchStore }> = {
  memory: () => {
    const store = memoryWatchStore({ now: () => t0 });
    return { a: store, b: store };
  },
  redis: () => redisPair('redis'),
  'redis-cluster': () => redisPair('redis-cluster'),
  // Two stores on one pool (each query its own connection), one schedule in the database.
  postgres: () => {
    const prefix = `w${process.pid}_${++prefixSeq}`;
    const a = postgresWatchStore({ pool: pg().pool, prefix, now: () => t0 });
    const b = postgresWatchStore({ pool: pg().pool, prefix, now: () => t0 });
    const ready = a.migrate();
    pgStores.push(ready);
    const after = <T extends object>(store: T): T =>
      new Proxy(store, {
        get: (target, name) =>
          typeof target[name as keyof T] === 'function'
            ? async (...args: unknown[]) => (await ready, (target[name as keyof T] as (...a: unknown[]) => unknown)(...args))
            : target[name as keyof T],
      });
    return { a: after(a), b: after(b) };
  },
};
const t0 = Date.parse('2026-11-23T10:00:00Z');

describe.each(Object.keys(stores))('%s watch store', (kind) => {
  const open = () => (stores[kind] as () => { a: WatchStore; b: WatchStore })();

  it('leases each due charge to one owner at a time, in due order, and only the holder moves it', async () => {
    const { a, b } = open();
    await a.watch('txn_2', t0 + 2);
    await a.watch('txn_1', t0 + 1);
    await a.watch('txn_later', t0 + 60_000);
    await b.watch('txn_1', t0 + 999); // already watched: keeps its schedule
    const first = await a.lease(t0 + 10, 10, 5_000, 'owner-a');
    expect(first.map((e) => [e.chargeId, e.createdAt, e.checks])).toEqual([
      ['txn_1', t0 + 1, 0],
      ['txn_2', t0 + 2, 0],
    ]);
    expect(await b.lease(t0 + 10, 10, 5_000, 'owner-b')).toEqual([]);
    expect(await b.reschedule('txn_1', 'owner-b', t0 + 20, 1)).toBe(false);
    expect(await b.finish('txn_1', 'owner-b')).toBe(false);
    expect(await a.reschedule('txn_1', 'owner-a', t0 + 20, 1)).toBe(true);
    expect(await a.finish('txn_2', 'owner-a')).toBe(true);
    expect((await b.lease(t0 + 20, 10, 5_000, 'owner-b')).map((e) => [e.chargeId, e.checks])).toEqual([['txn_1', 1]]);
    expect(await a.stats()).toEqual({ watched: 2, oldestCreatedAt: t0 + 1 });
  });

  it('due: a followed charge scheduled later is due at once; a leased one stays its holder’s; an unknown one is not followed', async () => {
    const { a, b } = open();
    await a.watch('txn_later', t0 + 60_000);
    await a.watch('txn_held', t0);
    expect(await a.lease(t0 + 10, 10, 5_000, 'owner-a')).toMatchObject([{ chargeId: 'txn_held' }]);
    expect(await b.due!('txn_later', t0 + 10)).toBe(true);
    expect(await b.due!('txn_held', t0 + 10)).toBe(false);
    expect(await b.due!('txn_unknown', t0 + 10)).toBe(false);
    expect((await b.lease(t0 + 10, 10, 5_000, 'owner-b')).map((e) => e.chargeId)).toEqual(['txn_later']);
    // Never later than it was: a charge due already keeps its time.
    expect(await a.reschedule('txn_held', 'owner-a', t0 + 5, 1)).toBe(true);
    expect(await a.due!('txn_held', t0 + 9_000)).toBe(true);
    expect((await a.lease(t0 + 6, 10, 5_000, 'owner-a')).map((e) => [e.chargeId, e.nextCheckAt])).toEqual([['txn_held', t0 + 5]]);
  });

  it('shares one read budget over a sliding window', async () => {
    const { a, b } = open();
    expect(await a.reserveReads(3, 5, 60_000, t0)).toBe(3);
    expect(await b.reserveReads(3, 5, 60_000, t0 + 1_000)).toBe(2);
    expect(await a.reserveReads(1, 5, 60_000, t0 + 59_999)).toBe(0);
    expect(await a.reserveReads(5, 5, 60_000, t0 + 60_000)).toBe(3);
  });
});

describe.each(['redis', 'redis-cluster'] as const)('%s watch store', (kind) => {
  it('a lease that lapses (a crashed reconciler) makes the charge due again for another', async () => {
    const { a, b } = redisPair(kind);
    await a.watch('txn_crash', t0);
    expect(await a.lease(t0, 1, 50, 'crashed')).toHaveLength(1);
    expect(await b.lease(t0 + 49, 1, 5_000, 'other')).toHaveLength(0);
    // The schedule's own clock, not a timer: the charge is due again once the lease time has passed.
    expect((await b.lease(t0 + 50, 1, 5_000, 'other')).map((e) => e.chargeId)).toEqual(['txn_crash']);
    expect(await a.finish('txn_crash', 'crashed')).toBe(false);
  });
});

describe.each(['redis', 'redis-cluster'] as const)('%s watch store with its default prefix', (kind) => {
  it('watches, leases, reschedules and finishes (one {hash tag}: no CROSSSLOT on a Cluster)', async () => {
    const client = connect(kind);
    const store = redisWatchStore({ client, now: () => t0 });
    await store.watch('txn_default', t0);
    const [entry] = await store.lease(t0, 10, 5_000, 'me');
    expect(entry?.chargeId).toBe('txn_default');
    expect(await store.reschedule('txn_default', 'me', t0 + 1, 1)).toBe(true);
    expect((await store.lease(t0 + 1, 10, 5_000, 'me')).map((e) => e.checks)).toEqual([1]);
    expect(await store.reserveReads(2, 5, 60_000, t0)).toBe(2);
    expect(await store.finish('txn_default', 'me')).toBe(true);
    expect(await store.stats()).toEqual({ watched: 0, oldestCreatedAt: undefined });
    expect(await client.exists('pixhook:{reconcile}:reads')).toBe(1);
  });

  it(
    kind === 'redis-cluster'
      ? 'refuses a custom prefix without a {hash tag}, with the fix in the message'
      : 'takes a custom prefix without a hash tag',
    () => {
      const client = connect(kind);
      if (kind === 'redis-cluster') {
        expect(() => redisWatchStore({ client, prefix: 'shop:reconcile:' })).toThrow(PixhookConfigError);
        expect(() => redisWatchStore({ client, prefix: 'shop:reconcile:' })).toThrow(
          /watch store must carry a \{hash tag\} on a Redis Cluster.*such as "shop:\{reconcile\}:"/,
        );
      } else {
        expect(() => redisWatchStore({ client, prefix: 'shop:reconcile:' })).not.toThrow();
      }
    },
  );
});
