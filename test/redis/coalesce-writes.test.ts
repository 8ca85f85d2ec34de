import type { Socket } from 'node:net';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceStream, coalesceWrites } from '../../src/redis/coalesce-writes.js';
import { openConnection } from '../../src/redis/redis-connection.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const afterIo = () => new Promise((resolve) => setImmediate(resolve));

/** Counts the socket's writes as they reach it: one `_write` or `_writev` call per system call. */
function countWrites(socket: Socket): { calls: number[] } {
  const seen = { calls: [] as number[] };
  const target = socket as unknown as {
    _write: (chunk: unknown, encoding: string, cb: () => void) => void;
    _writev: (chunks: unknown[], cb: () => void) => void;
  };
  const write = target._write.bind(socket);
  const writev = target._writev.bind(socket);
  target._write = (chunk, encoding, cb) => {
    seen.calls.push(1);
    write(chunk, encoding, cb);
  };
  target._writev = (chunks, cb) => {
    seen.calls.push(chunks.length);
    writev(chunks, cb);
  };
  return seen;
}

describe('coalesceStream', () => {
  it('corks at the first write of a turn, uncorks after its I/O, and wraps a stream once', async () => {
    const log: string[] = [];
    const stream = {
      write: (chunk: string) => {
        log.push(`write ${chunk}`);
        return true;
      },
      cork: () => void log.push('cork'),
      uncork: () => void log.push('uncork'),
    };
    coalesceStream(stream);
    coalesceStream(stream);
    coalesceStream(undefined);
    const write = stream.write as unknown as (chunk: string) => boolean;
    expect(write.call(stream, 'a')).toBe(true);
    write.call(stream, 'b');
    expect(log).toEqual(['cork', 'write a', 'write b']);
    await afterIo();
    write.call(stream, 'c');
    await afterIo();
    expect(log).toEqual(['cork', 'write a', 'write b', 'uncork', 'cork', 'write c', 'uncork']);
  });

  it('leaves a Cluster client alone', () => {
    let listened = false;
    coalesceWrites({ isCluster: true, on: () => (listened = true) } as never);
    expect(listened).toBe(false);
  });
});

describe('the connections pixhook opens', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it.each(['url', 'options'] as const)(
    'from %s: the commands of one turn leave in one write, answered in order, again after a reconnection',
    async (given) => {
      const opened = await openConnection(given === 'url' ? server.url : { host: '127.0.0.1', port: server.port }, 'worker');
      const client = opened.connection as Redis;
      try {
        if (client.status !== 'ready') await once(client, 'ready');
        await afterIo();
        for (let round = 0; round < 2; round++) {
          const writes = countWrites(client.stream as Socket);
          const answers = Array.from({ length: 20 }, (_, i) =>
            client.set(`k${round}:${i}`, String(i)).then(() => client.get(`k${round}:${i}`)),
          );
          const sets = writes.calls.slice();
          expect(await Promise.all(answers)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
          // Nothing left before the turn's I/O was done; then the twenty SETs went in one system call.
          expect(sets).toEqual([]);
          expect(writes.calls[0]).toBe(20);
          // A new socket (ioredis reconnects) coalesces too.
          client.disconnect(true);
          await once(client, 'ready');
          await afterIo();
        }
      } finally {
        await opened.close();
      }
    },
  );
});
