import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, PixhookConfigError } from '../../src/index.js';
import { redisWatchStore } from '../../src/redis/index.js';
import { redisDedupeStore, redisQuarantine } from '../../src/redis/index.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { startRedisServer, type RedisServer, type RedisServerOptions } from '../helpers/redis-server.js';
import { headersOf, paidDelivery, testSecret } from './deliveries.js';

const servers: RedisServer[] = [];
const clients: Redis[] = [];

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all(servers.map((server) => server.dispose()));
});

async function serverWith(options: RedisServerOptions): Promise<Redis> {
  const server = await startRedisServer(options);
  servers.push(server);
  const client = new Redis(server.url);
  clients.push(client);
  return client;
}

/** A logger that keeps every line, to count them. */
function capturingLogger() {
  const lines: { level: string; message: string; fields: object }[] = [];
  const at = (level: string) => (fields: object, message?: string) => void lines.push({ level, message: message ?? '', fields });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('Redis persistence, checked once per connection', () => {
  it('warns exactly once, in plain words, on a server with neither AOF nor snapshots, and claims go on', async () => {
    const client = await serverWith({});
    const { lines, logger } = capturingLogger();
    const store = redisDedupeStore({ client, logger });
    const watch = redisWatchStore({ client, logger });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.claim(`k${i}`, 'o', 60_000)));
    expect(results.every((r) => r === 'claimed')).toBe(true);
    await store.ready();
    await watch.ready();
    await store.quarantine!.put({
      reason: 'json_invalid',
      message: 'x',
      bytes: new Uint8Array([1]),
      headers: {},
      receivedAt: new Date().toISOString(),
    });
    for (let i = 0; i < 20; i++) await store.claim(`again${i}`, 'o', 60_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('warn');
    expect(lines[0]!.message).toMatch(/keeps its keys only in memory/);
    expect(lines[0]!.message).toMatch(/appendonly yes/);
    expect(lines[0]!.message).toMatch(/requirePersistence/);
  });

  it('with requirePersistence: true, refuses such a server: ready() rejects, claims fail, the receiver answers 503 store_unavailable', async () => {
    const client = await serverWith({});
    const { logger } = capturingLogger();
    const store = redisDedupeStore({ client, logger, requirePersistence: true });
    await expect(store.ready()).rejects.toThrow(PixhookConfigError);
    await expect(store.ready()).rejects.toThrow(/requirePersistence.*only in memory/);
    await expect(store.claim('k', 'o', 60_000)).rejects.toThrow(/requirePersistence/);
    expect(await client.exists('pixhook:dedupe:k')).toBe(0);
    await expect(redisWatchStore({ client, requirePersistence: true }).watch('txn_1')).rejects.toThrow(PixhookConfigError);
    await expect(redisQuarantine({ client, requirePersistence: true }).ready()).rejects.toThrow(PixhookConfigError);

    let handled = 0;
    const receiver = createReceiver({ secret: testSecret, store: redisDedupeStore({ client, requirePersistence: true, logger }) });
    receiver.on('transaction_paid', () => void handled++);
    const delivery = paidDelivery('tx_volatile');
    const answer = await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body });
    expect(answer).toMatchObject({ status: 503, reason: 'store_unavailable' });
    expect(handled).toBe(0);
  });

  it('says nothing on a server with AOF, and requirePersistence accepts it', async () => {
    const client = await serverWith({ persistent: true });
    const { lines, logger } = capturingLogger();
    const store = redisDedupeStore({ client, logger, requirePersistence: true });
    await store.ready();
    expect(await store.claim('k', 'o', 60_000)).toBe('claimed');
    expect(lines).toEqual([]);
  });

  it('counts RDB snapshots (a save schedule) as persistence', async () => {
    const client = await serverWith({ extraArgs: ['--save', '3600 1'] });
    const { lines, logger } = capturingLogger();
    await redisDedupeStore({ client, logger, requirePersistence: true }).ready();
    expect(lines).toEqual([]);
  });

  it('where CONFIG is disabled, says once that it cannot check, and claims still work', async () => {
    const client = await serverWith({ extraArgs: ['--rename-command', 'CONFIG', ''] });
    await expect(client.config('GET', 'appendonly')).rejects.toThrow(/unknown command/);
    const { lines, logger } = capturingLogger();
    const store = redisDedupeStore({ client, logger });
    await store.ready();
    for (let i = 0; i < 10; i++) expect(await store.claim(`k${i}`, 'o', 60_000)).toBe('claimed');
    await redisWatchStore({ client, logger }).ready();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', message: expect.stringMatching(/cannot check whether Redis keeps its keys/) });
    // Asked to require persistence it cannot see, a store refuses rather than guess.
    await expect(redisDedupeStore({ client, requirePersistence: true }).claim('x', 'o', 60_000)).rejects.toThrow(/cannot check/);
  });

  it('checks again after a reconnect: a server restarted without persistence is refused', async () => {
    const server = await startRedisServer({ persistent: true });
    servers.push(server);
    const client = new Redis(server.url, { retryStrategy: () => 20 });
    client.on('error', () => {});
    clients.push(client);
    const store = redisDedupeStore({ client, requirePersistence: true });
    expect(await store.claim('before', 'o', 60_000)).toBe('claimed');
    await client.config('SET', 'appendonly', 'no');
    await client.config('SET', 'save', '');
    // Until the connection is new, the finding stands (no check on every call).
    expect(await store.claim('same-connection', 'o', 60_000)).toBe('claimed');
    const reconnected = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    client.disconnect(true);
    await reconnected;
    await expect(store.claim('after', 'o', 60_000)).rejects.toThrow(/requirePersistence/);
  });

  it('on a Cluster, reads every master: the warning names each volatile one, and requirePersistence refuses while any is', async () => {
    const cluster = await startRedisCluster();
    const client = new Cluster([...cluster.nodes]);
    try {
      const { lines, logger } = capturingLogger();
      // Two of the three masters turn snapshots on; only the third is named.
      for (const port of cluster.ports.slice(0, 2)) {
        const node = new Redis(port, '127.0.0.1');
        await node.config('SET', 'save', '3600 1');
        node.disconnect();
      }
      const store = redisDedupeStore({ client, logger });
      await store.ready();
      expect(await store.claim('k', 'o', 60_000)).toBe('claimed');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.message).toContain(`Redis at 127.0.0.1:${cluster.ports[2]} keeps its keys only in memory`);
      expect(lines[0]!.message).not.toContain(String(cluster.ports[0]));
      await expect(redisWatchStore({ client, requirePersistence: true }).ready()).rejects.toThrow(/requirePersistence/);
    } finally {
      client.disconnect();
      await cluster.dispose();
    }
  }, 60_000);

  it('refuses a requirePersistence that is not a boolean', async () => {
    const client = await serverWith({ persistent: true });
    expect(() => redisDedupeStore({ client, requirePersistence: 'yes' as unknown as boolean })).toThrow(
      /`requirePersistence` must be true or false/,
    );
  });
});
