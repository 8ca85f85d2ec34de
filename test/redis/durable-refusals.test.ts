import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, PixhookConfigError, PixhookError } from '../../src/index.js';
import { createDurableQueue, startWorker } from '../../src/redis/index.js';
import { freePort } from '../helpers/free-port.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { until } from './deliveries.js';
import { startFixture } from './fixture-process.js';

/** A TCP server that accepts connections and never answers: a hung Redis, a firewall that swallows packets. */
async function silentServer(): Promise<{ url: string; sockets: Set<Socket>; accepted(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    sockets,
    accepted: () => accepted,
    close: () => closeServer(server, sockets),
  };
}

/** A TCP proxy in front of a real Redis that can go silent: after `silence()` it forwards nothing either way. */
async function silenceableProxy(target: number): Promise<{ url: string; silence(): void; close(): Promise<void> }> {
  let silent = false;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const upstream = connect(target, '127.0.0.1');
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => (sockets.delete(s), socket.destroy(), upstream.destroy()));
    }
    socket.on('data', (chunk) => silent || upstream.write(chunk));
    upstream.on('data', (chunk) => silent || socket.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    silence: () => void (silent = true),
    close: () => closeServer(server, sockets),
  };
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

const processing = createProcessing().on('transaction_paid', () => {});

describe('startWorker refuses a processing with no handlers', () => {
  it('throws PixhookConfigError before touching Redis: every job would complete with nothing run', async () => {
    const error = await rejection(startWorker({ processing: createProcessing(), connection: 'redis://127.0.0.1:1' }));
    expect(error).toBeInstanceOf(PixhookConfigError);
    expect((error as Error).message).toContain('`processing` has no handlers');
    // onError alone handles nothing.
    const onlyOnError = createProcessing().onError(() => {});
    await expect(startWorker({ processing: onlyOnError, connection: 'redis://127.0.0.1:1' })).rejects.toThrow(PixhookConfigError);
  });

  it('names createProcessing(), and nothing that does not exist, when `processing` is not one', async () => {
    const error = await rejection(startWorker({ processing: {} as never, connection: 'redis://127.0.0.1:1' }));
    expect(error).toBeInstanceOf(PixhookConfigError);
    expect((error as Error).message).toContain('createProcessing()');
    expect((error as Error).message).not.toContain('receiver.processing');
  });
});

describe('numeric options are bounded', () => {
  it.each([
    ['retry.attempts', { retry: { attempts: 1_000_000_000 } }, '`retry.attempts` must be an integer from 1 to 100'],
    ['retry.attempts', { retry: { attempts: 0 } }, '`retry.attempts`'],
    ['retry.backoff.delayMs', { retry: { backoff: { delayMs: 1e12 } } }, '`retry.backoff.delayMs` must be an integer from 0 to 86400000'],
    ['retry.backoff.maxDelayMs', { retry: { backoff: { maxDelayMs: -1 } } }, '`retry.backoff.maxDelayMs`'],
    ['retry.backoff.factor', { retry: { backoff: { factor: Number.NaN } } }, '`retry.backoff.factor`'],
    ['the old `attempts`', { attempts: 3 }, 'pixhook: `attempts` was renamed: use `retry: { attempts }`'],
    [
      'the old `backoff`',
      { backoff: { delayMs: 10 } },
      'pixhook: `backoff` was renamed: use `retry: { backoff: { delayMs, factor, maxDelayMs } }`',
    ],
    ['concurrency', { concurrency: 0 }, '`concurrency`'],
    ['lockDurationMs', { lockDurationMs: 2 ** 31 }, '`lockDurationMs`'],
    ['connectTimeoutMs', { connectTimeoutMs: 0 }, '`connectTimeoutMs` must be an integer from 100 to 300000'],
    ['queueName', { queueName: 'a:b' }, '`queueName` must be a non-empty string without ":"'],
  ])('startWorker refuses %s out of range', async (_name, options, message) => {
    const error = await rejection(startWorker({ processing, connection: 'redis://127.0.0.1:1', ...options }));
    expect(error).toBeInstanceOf(PixhookConfigError);
    expect((error as Error).message).toContain(message);
  });

  it('createDurableQueue refuses keepCompletedMs, connectTimeoutMs and a queue name it cannot use', async () => {
    await expect(createDurableQueue({ connection: 'redis://127.0.0.1:1', keepCompletedMs: 0 })).rejects.toThrow('`keepCompletedMs`');
    await expect(createDurableQueue({ connection: 'redis://127.0.0.1:1', connectTimeoutMs: 1e9 })).rejects.toThrow('`connectTimeoutMs`');
    await expect(createDurableQueue({ connection: 'redis://127.0.0.1:1', queueName: 'a:b' })).rejects.toThrow(PixhookConfigError);
  });

  // Found from outside: a missing `connection` rejected with a TypeError from inside the client check.
  it.each([undefined, null, 6379])('createDurableQueue and startWorker name a `connection` that is %s', async (connection) => {
    const given = connection as unknown as string;
    for (const pending of [createDurableQueue({ connection: given }), startWorker({ processing, connection: given })]) {
      const error = await rejection(pending);
      expect(error).toBeInstanceOf(PixhookConfigError);
      expect((error as Error).message).toContain('`connection` must be a Redis URL, connection options or an ioredis client');
    }
  });
});

describe('never hangs on a Redis that does not answer', () => {
  it('createDurableQueue and startWorker against a silent server reject with redis_unavailable within connectTimeoutMs, and close every socket', async () => {
    const silent = await silentServer();
    try {
      for (const open of [
        () => createDurableQueue({ connection: silent.url, connectTimeoutMs: 300 }),
        () => startWorker({ processing, connection: silent.url, connectTimeoutMs: 300 }),
      ]) {
        const before = silent.accepted();
        // The contract is itself a bound: the test's own 20 s timeout is the slack; it would hang forever before.
        const error = await rejection(open());
        expect(error).toBeInstanceOf(PixhookError);
        expect((error as PixhookError).code).toBe('redis_unavailable');
        expect((error as Error).message).toContain('did not answer within 300 ms');
        expect(silent.accepted()).toBeGreaterThan(before);
        // Everything it opened is closed: nothing keeps the process alive, nothing reconnects.
        await until(() => silent.sockets.size === 0);
        const after = silent.accepted();
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(silent.accepted()).toBe(after);
      }
    } finally {
      await silent.close();
    }
  });

  it('a process that got those rejections exits by itself: nothing pixhook opened keeps it alive', async () => {
    const silent = await silentServer();
    try {
      const child = startFixture('silent-redis.js', { REDIS_URL: silent.url });
      const exitCode = await new Promise<number | null>((resolve) => child.child.once('exit', (code) => resolve(code)));
      expect(child.stderr()).toBe('');
      expect(exitCode).toBe(0);
      expect(child.lines.map((l) => l['rejected'])).toEqual(['redis_unavailable', 'redis_unavailable']);
    } finally {
      await silent.close();
    }
  });

  it('the same against a refused port', async () => {
    const port = await freePort();
    for (const open of [
      () => createDurableQueue({ connection: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 }),
      () => startWorker({ processing, connection: `redis://:secret-pw@127.0.0.1:${port}`, connectTimeoutMs: 300 }),
    ]) {
      const error = await rejection(open());
      expect((error as PixhookError).code).toBe('redis_unavailable');
      expect((error as Error).message).not.toContain('secret-pw');
    }
  });

  describe('a Redis that goes silent after the queue opened', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(() => server.dispose());

    it('counts, listDeadLetters, replayDeadLetter(s) and close reject or return within the bound instead of hanging', async () => {
      const proxy = await silenceableProxy(server.port);
      const queue = await createDurableQueue({ connection: proxy.url, queueName: 'silenced', connectTimeoutMs: 300 });
      try {
        expect((await queue.counts()).waiting).toBe(0);
        proxy.silence();
        for (const call of [
          () => queue.counts(),
          () => queue.listDeadLetters(),
          () => queue.replayDeadLetters(),
          () => queue.replayDeadLetter('transaction_paid:x:paid'),
        ]) {
          const error = await rejection(call());
          expect((error as PixhookError).code).toBe('redis_unavailable');
        }
      } finally {
        await queue.close();
        await proxy.close();
      }
    });
  });
});
