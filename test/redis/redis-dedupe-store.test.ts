import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createReceiver, PixhookConfigError } from '../../src/index.js';
import { redisWatchStore } from '../../src/redis/index.js';
import { redisDedupeStore, redisQuarantine, type NodeRedisLikeClient, type RedisClientLike } from '../../src/redis/index.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';
import { headersOf, paidDelivery, testSecret, until } from './deliveries.js';
import { runStoreConformance } from '../dedupe/store-conformance.js';

const target = useRedisTargets();
// The file's single-server client, for the tests that are about a client's shape or a fault, not the topology.
const single = () => target('single').client;

let conformancePrefix = 0;

describe.each(redisTargetNames)('redisDedupeStore on %s', (name) => {
  const client = () => target(name).client;

  runStoreConformance(() => redisDedupeStore({ client: client(), prefix: `conf${++conformancePrefix}:` }));

  it('claims, then answers in_flight, then done after complete', async () => {
    const store = redisDedupeStore({ client: client(), prefix: 't1:' });
    expect(await store.claim('k', 'o', 60_000)).toBe('claimed');
    expect(await store.claim('k', 'p', 60_000)).toBe('in_flight');
    expect(await store.complete('k', 'o', 60_000)).toBe(true);
    expect(await store.claim('k', 'p', 60_000)).toBe('done');
    expect(await client().get('t1:k')).toBe('d');
  });

  it('gives exactly one of 50 concurrent claims across 5 stores', async () => {
    const stores = Array.from({ length: 5 }, () => redisDedupeStore({ client: client(), prefix: 't2:' }));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 5]!.claim('same', `o${i}`, 60_000)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(49);
  });

  it('releases only its own claim, never a done key or another process’s claim', async () => {
    const mine = redisDedupeStore({ client: client(), prefix: 't3:' });
    const theirs = redisDedupeStore({ client: target(name).connect(), prefix: 't3:' });
    expect(await mine.claim('a', 'mine', 60_000)).toBe('claimed');
    await theirs.release('a', 'theirs');
    expect(await theirs.claim('a', 'theirs', 60_000)).toBe('in_flight');
    await mine.release('a', 'mine');
    expect(await theirs.claim('a', 'theirs', 60_000)).toBe('claimed');
    await theirs.complete('a', 'theirs', 60_000);
    await mine.release('a', 'mine');
    expect(await mine.claim('a', 'mine', 60_000)).toBe('done');
  });

  it('lets an unrenewed claim expire (a crashed instance) and renews a live one', async () => {
    const store = redisDedupeStore({ client: client(), prefix: 't4:' });
    expect(await store.claim('crashed', 'a', 50)).toBe('claimed');
    expect(await store.claim('live', 'b', 50)).toBe('claimed');
    expect(await store.extend('live', 'b', 60_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await redisDedupeStore({ client: client(), prefix: 't4:' }).claim('crashed', 'c', 60_000)).toBe('claimed');
    expect(await store.claim('live', 'c', 60_000)).toBe('in_flight');
    expect(await client().pttl('t4:live')).toBeGreaterThan(1_000);
  });

  it('keeps completed keys for the dedupe TTL', async () => {
    const store = redisDedupeStore({ client: client(), prefix: 't5:' });
    await store.claim('k', 'o', 60_000);
    await store.complete('k', 'o', 86_400_000);
    expect(await client().pttl('t5:k')).toBeGreaterThan(86_000_000);
  });

  it('works through a node-redis shaped client (evalSha / eval with keys and arguments)', async () => {
    const calls: string[] = [];
    const redis = client();
    const nodeRedis: NodeRedisLikeClient = {
      isReady: true,
      evalSha: (sha, o) => (calls.push('evalSha'), redis.evalsha(sha, o.keys.length, ...o.keys, ...o.arguments)),
      eval: (script, o) => (calls.push('eval'), redis.eval(script, o.keys.length, ...o.keys, ...o.arguments)),
    };
    await target(name).flushScripts();
    const store = redisDedupeStore({ client: nodeRedis, prefix: 't6:' });
    expect(await store.claim('k', 'o', 60_000)).toBe('claimed');
    expect(await store.claim('k', 'p', 60_000)).toBe('in_flight');
    // The first call found no cached script and loaded it; the next one was a single EVALSHA.
    expect(calls).toEqual(['evalSha', 'eval', 'evalSha']);
  });

  it('keys of one prefix need no hash tag: each script touches one key, wherever its slot is', async () => {
    const store = redisDedupeStore({ client: client(), prefix: 'spread:' });
    for (let i = 0; i < 30; i++) expect(await store.claim(`tx_${i}`, 'o', 60_000)).toBe('claimed');
    expect((await target(name).keys('spread:*')).length).toBe(30);
    if (name === 'cluster') {
      const perMaster = await Promise.all((client() as import('ioredis').Cluster).nodes('master').map((node) => node.keys('spread:*')));
      expect(perMaster.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    }
  });
});

describe('redisDedupeStore on a single server', () => {
  const client = single;

  it('fails fast when the client is not connected', async () => {
    const store = redisDedupeStore({ client: { isReady: false, eval: never, evalSha: never } });
    await expect(store.claim('k', 'o', 1000)).rejects.toThrow('redis is not connected');
  });

  it('fails fast while an ioredis client reconnects: `connecting` after a lost connection queues no command', async () => {
    // ioredis goes reconnecting → connecting → (refused) → reconnecting …; `retryAttempts` counts since the last
    // connection. A claim sent while `connecting` used to wait in the offline queue until the timeouts (4 s seen).
    const sent: string[] = [];
    const record = (sha: string): Promise<unknown> => (sent.push(sha), Promise.resolve('claimed'));
    const reconnecting = { status: 'connecting', retryAttempts: 3, eval: record, evalsha: record };
    await expect(redisDedupeStore({ client: reconnecting, quarantine: false }).claim('k', 'o', 1000)).rejects.toThrow(
      'redis is not connected',
    );
    expect(sent).toEqual([]);
    // A client still making its first connection queues its first calls (nothing was lost yet).
    const starting = { status: 'connecting', retryAttempts: 0, eval: record, evalsha: record };
    await redisDedupeStore({ client: starting, quarantine: false })
      .claim('k', 'o', 1000)
      .catch(() => {});
    expect(sent.length).toBeGreaterThan(0);
  });

  it('undoes a claim that answered after it was given up', async () => {
    let chain: Promise<unknown> = Promise.resolve();
    // Serializes calls like one connection does, and holds the claim's reply back past the timeout.
    const slow: NodeRedisLikeClient = {
      evalSha: (sha, o) => {
        const run = chain.then(async () => {
          if (o.keys[0] === 't7:slow' && o.arguments.length === 2 && o.arguments[0] === 'slow-owner')
            await new Promise((r) => setTimeout(r, 200));
          return client().evalsha(sha, o.keys.length, ...o.keys, ...o.arguments);
        });
        chain = run.catch(() => {});
        return run;
      },
      eval: (script, o) => client().eval(script, o.keys.length, ...o.keys, ...o.arguments),
    };
    await (client() as Redis).script('LOAD', 'return 1');
    const store = redisDedupeStore({ client: slow, prefix: 't7:', claimTimeoutMs: 50 });
    await store.claim('warm', 'o', 1000).catch(() => {});
    await expect(store.claim('slow', 'slow-owner', 60_000)).rejects.toThrow('took longer');
    await chain;
    expect(await client().exists('t7:slow')).toBe(0);
  });
});

describe('Redis clients pixhook cannot drive are refused at construction', () => {
  // The shape of @upstash/redis's REST client: eval(script, keys[], args[]), evalsha(sha, keys[], args[]), no connection status.
  const upstashLike = {
    eval: (_script: string, keys: string[], args: unknown[]) => Promise.resolve([...keys, ...args]),
    evalsha: (_sha: string, keys: string[], args: unknown[]) => Promise.resolve([...keys, ...args]),
    get: () => Promise.resolve(null),
    set: () => Promise.resolve('OK'),
    pipeline: () => ({}),
  } as unknown as RedisClientLike;
  const makers: Record<string, (client: RedisClientLike) => unknown> = {
    redisDedupeStore: (client) => redisDedupeStore({ client }),
    redisQuarantine: (client) => redisQuarantine({ client }),
    redisWatchStore: (client) => redisWatchStore({ client }),
  };

  it.each(Object.keys(makers))(
    '%s refuses an @upstash/redis-shaped REST client, null and a plain object, saying which clients work',
    (store) => {
      const make = makers[store]!;
      expect(() => make(upstashLike)).toThrow(PixhookConfigError);
      expect(() => make(upstashLike)).toThrow(/REST client.*@upstash\/redis.*ioredis `Redis` or `Cluster`.*node-redis/);
      for (const bad of [null, undefined, {}, { get: () => null }, 'redis://127.0.0.1:6379']) {
        expect(() => make(bad as unknown as RedisClientLike)).toThrow(PixhookConfigError);
        expect(() => make(bad as unknown as RedisClientLike)).toThrow(/`client` must be a Redis client.*ioredis `Redis` or `Cluster`/);
      }
    },
  );

  it('still takes a real ioredis client and a node-redis shaped one', () => {
    expect(() => redisDedupeStore({ client: single() })).not.toThrow();
    expect(() => redisDedupeStore({ client: { eval: never, evalSha: never } })).not.toThrow();
  });
});

describe('a receiver on the redis store', () => {
  it('answers 503 store_unavailable with Retry-After while Redis is down, and recovers when it returns', async () => {
    const local = await startRedisServer();
    const own = new Redis(local.url, { retryStrategy: () => 20 });
    own.on('error', () => {});
    let handled = 0;
    const receiver = createReceiver({ secret: testSecret, store: redisDedupeStore({ client: own }), storeTimeoutMs: 500 });
    receiver.on('transaction_paid', () => void handled++);
    const delivery = paidDelivery('tx_down');
    try {
      await local.stop();
      const down = await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body });
      expect(down.status).toBe(503);
      expect(down.reason).toBe('store_unavailable');
      expect(down.headers['retry-after']).toBe('5');
      expect(handled).toBe(0);
      await local.start();
      await new Promise<void>((resolve) => (own.status === 'ready' ? resolve() : own.once('ready', () => resolve())));
      const up = await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body });
      expect(up.status).toBe(200);
      const again = await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body });
      expect(again.reason).toBe('duplicate');
      expect(handled).toBe(1);
      expect(receiver.metrics().rejected.store_unavailable).toBe(1);
    } finally {
      own.disconnect();
      await local.dispose();
    }
  });
});

function never(): Promise<unknown> {
  return Promise.reject(new Error('must not be called'));
}

describe('redisDedupeStore complete during an outage', () => {
  it('keeps trying to mark a handled event done until Redis answers', async () => {
    const client = single() as Redis;
    let failures = 2;
    let marking = false;
    const flaky: NodeRedisLikeClient = {
      evalSha: (sha, o) => {
        if (
          o.keys[0] === 't8:k' &&
          o.arguments.length === 2 &&
          o.arguments[1] === '60000' &&
          o.arguments[0] === 'o' &&
          marking &&
          failures-- > 0
        )
          return Promise.reject(new Error('connection lost'));
        return client.evalsha(sha, o.keys.length, ...o.keys, ...o.arguments);
      },
      eval: (script, o) => client.eval(script, o.keys.length, ...o.keys, ...o.arguments),
    };
    const store = redisDedupeStore({ client: flaky, prefix: 't8:' });
    await store.claim('k', 'o', 60_000);
    marking = true;
    await expect(store.complete('k', 'o', 60_000)).rejects.toThrow('connection lost');
    await until(async () => (await client.get('t8:k')) === 'd');
    expect(failures).toBe(-1);
  });
});
