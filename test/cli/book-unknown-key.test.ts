import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { call, urlSecret } from '../api-pix/fixtures.js';
import { runCli } from '../helpers/cli-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const handlers = fileURLToPath(new URL('./fixtures/book-handlers.js', import.meta.url));
const tempDir = useTempDirs('pixhook-book-unknown-key-');
let redis: RedisServer;
let client: Redis;
beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.dispose();
});

describe('pixhook book and a Pix to another key', () => {
  it('held lists it as unknown_key; release runs its handlers once from another process; the PSP’s retry is then a duplicate', async () => {
    const prefix = 'cli:{unknown-key}:';
    const book = redisPaymentBook({ client, prefix });
    const receiver = createApiPixReceiver({
      auth: { urlSecret: { secret: urlSecret } },
      keys: ['loja@example.com'],
      book,
      store: redisDedupeStore({ client, prefix: `${prefix}dedupe:` }),
    });
    const foreign = apiPixPix({ key: 'outra@example.com', txid: 'txidunknownkey0000000000000000001' });
    expect((await receiver.receive(call(apiPixBody([foreign])))).reason).toBe('held');
    const flags = ['--redis', redis.url, '--prefix', prefix];

    const held = await runCli(['book', 'held', ...flags]);
    const [heldId] = held.stdout.trim().split(' ');
    expect(held.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^\S+ held \S+ pix_received transaction txidunknownkey0000000000000000001 unknown_key$/),
    ]);

    const file = join(tempDir(), 'handled');
    const released = await runCli(['book', 'release', heldId!, '--handlers', handlers, ...flags], { env: { HANDLED_FILE: file } });
    expect(released.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('pix_received txidunknownkey0000000000000000001\n');
    expect(await book.held()).toEqual([]);
    expect((await receiver.receive(call(apiPixBody([foreign])))).reason).toBe('duplicate');
    expect(readFileSync(file, 'utf8')).toBe('pix_received txidunknownkey0000000000000000001\n');
    await receiver.close();
  });
});
