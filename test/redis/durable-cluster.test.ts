import { createServer, type Server } from 'node:http';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, PixhookConfigError, type Logger, type Receiver } from '../../src/index.js';
import { createDurableQueue, redisDedupeStore, startWorker } from '../../src/redis/index.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { paidDelivery, post, testSecret, until } from './deliveries.js';

/** Every line a logger was given, with its level. */
function recordingLogger(): Logger & { lines: { level: string; message?: string; fields: object }[] } {
  const lines: { level: string; message?: string; fields: object }[] = [];
  const push = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields, ...(message !== undefined && { message }) });
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

function listen(receiver: Receiver): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void receiver.receive({ method: req.method ?? 'POST', headers: req.headers, body: Buffer.concat(chunks) }).then((result) => {
        res.writeHead(result.status, result.headers).end(result.body);
      });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` })),
  );
}

describe('durable mode on a real 3-master Redis Cluster, default options', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.nodes]);
  });
  afterAll(async () => {
    client.disconnect();
    await cluster.dispose();
  });

  it('20 events over HTTP: all 200, each handled once by the worker, counts work, a dead letter is listed and replayed', async () => {
    const logger = recordingLogger();
    const queue = await createDurableQueue({ connection: cluster.url, logger });
    const receiver = createReceiver({
      secret: testSecret,
      mode: 'durable',
      queue,
      store: redisDedupeStore({ client, prefix: '{e2e}:' }),
      logger,
    });
    const { server, url } = await listen(receiver);
    const processing = createProcessing({ logger });
    const handled = new Map<string, number>();
    let healed = false;
    processing.on('transaction_paid', (event, context) => {
      if (event.transaction.id === 'tx_cluster_poison' && !healed) throw new Error('ledger rejected');
      handled.set(context.key!, (handled.get(context.key!) ?? 0) + 1);
    });
    const worker = await startWorker({ processing, connection: cluster.url, retry: { attempts: 2, backoff: { delayMs: 10 } }, logger });
    // An operator's tools on their own connection: an ioredis Cluster the caller owns.
    const operatorClient = new Cluster([...cluster.nodes]);
    const operator = await createDurableQueue({ connection: operatorClient });
    try {
      const events = [...Array.from({ length: 19 }, (_, i) => paidDelivery(`tx_cluster_${i}`)), paidDelivery('tx_cluster_poison')];
      const statuses = await Promise.all(events.map((delivery) => post(url, delivery)));
      expect(statuses).toEqual(events.map(() => 200));
      // The sender's retries are duplicates, not second jobs.
      expect(await post(url, events[0]!)).toBe(200);

      await until(async () => {
        const counts = await operator.counts();
        return counts.completed === 19 && counts.failed === 1;
      });
      expect(await queue.counts()).toMatchObject({ waiting: 0, active: 0, completed: 19, failed: 1 });
      expect(handled.size).toBe(19);
      expect([...handled.values()].every((n) => n === 1)).toBe(true);

      const dead = await operator.listDeadLetters();
      expect(dead.map((d) => d.key)).toEqual([events[19]!.key]);
      expect(dead[0]!.failedReason).toContain('ledger rejected');
      healed = true;
      expect(await operator.replayDeadLetter(events[19]!.key)).toBe(true);
      await until(() => handled.get(events[19]!.key) === 1);
      expect(await operator.listDeadLetters()).toEqual([]);
      expect(await operator.replayDeadLetters()).toBe(0);
      expect((await queue.counts()).completed).toBe(20);

      // No storm: over these 21 deliveries the queue and the worker logged no Redis error at all.
      expect(logger.lines.filter((l) => /queue error|worker error/.test(l.message ?? ''))).toEqual([]);
      expect(receiver.metrics()).toMatchObject({ duplicates: 1 });
    } finally {
      await worker.close();
      await operator.close();
      operatorClient.disconnect();
      server.close();
      await queue.close();
    }
  }, 60_000);

  it('refuses a prefix without a hash tag on a cluster, with the fix in the message; a tag in the queue name is enough', async () => {
    const processing = createProcessing().on('transaction_paid', () => {});
    for (const open of [
      () => createDurableQueue({ connection: cluster.url, prefix: 'bull' }),
      () => startWorker({ processing, connection: cluster.url, prefix: 'bull' }),
      () => createDurableQueue({ connection: client, prefix: 'myapp' }),
    ]) {
      const refused = await open().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(PixhookConfigError);
      expect((refused as Error).message).toMatch(/`prefix` must carry a hash tag.*prefix: '\{(bull|myapp)\}'/);
    }
    const tagged = await createDurableQueue({ connection: cluster.url, prefix: 'bull', queueName: '{orders}' });
    await tagged.enqueue({
      key: 'transaction_paid:tag:paid',
      name: 'transaction_paid',
      body: '{}',
      source: 'webhook',
      receivedAt: new Date().toISOString(),
    });
    expect((await tagged.counts()).waiting).toBe(1);
    await tagged.close();
  });

  it('refuses a single-node URL that points at one cluster node, naming redis+cluster://', async () => {
    const refused = await createDurableQueue({ connection: cluster.nodeUrl }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PixhookConfigError);
    expect((refused as Error).message).toContain('redis+cluster://');
    const processing = createProcessing().on('transaction_paid', () => {});
    await expect(startWorker({ processing, connection: cluster.nodeUrl })).rejects.toThrow(PixhookConfigError);
  });

  it('refuses a Cluster whose nodes give up on the worker’s blocking reads (maxRetriesPerRequest not null)', async () => {
    const retrying = new Cluster([...cluster.nodes], { redisOptions: { maxRetriesPerRequest: 3 } });
    const processing = createProcessing().on('transaction_paid', () => {});
    try {
      await expect(startWorker({ processing, connection: retrying })).rejects.toThrow(/maxRetriesPerRequest: null/);
    } finally {
      retrying.disconnect();
    }
  });
});

describe('a worker whose every Redis call fails does not flood the log', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server.dispose());

  it('logs a repeated Redis error once, however many times BullMQ retries it', async () => {
    // A Redis user that may connect and read INFO but not run scripts: every fetch of a job fails, forever.
    const admin = new Redis(server.url);
    await admin.call('ACL', 'SETUSER', 'noscripts', 'on', '>pw', '~*', '&*', '+@all', '-evalsha', '-eval');
    admin.disconnect();
    const logger = recordingLogger();
    const processing = createProcessing().on('transaction_paid', () => {});
    const worker = await startWorker({ processing, connection: `redis://noscripts:pw@127.0.0.1:${server.port}`, logger });
    let errors = 0;
    worker.worker.on('error', () => void errors++);
    try {
      // A bounded number of failures, not a bounded time: 200 errors seen by BullMQ.
      await until(() => errors >= 200, 5);
      const lines = logger.lines.filter((l) => l.message === 'pixhook: worker error');
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(2);
      expect(JSON.stringify(lines[0]!.fields)).toContain('NOPERM');
    } finally {
      await worker.close();
    }
  }, 60_000);
});
