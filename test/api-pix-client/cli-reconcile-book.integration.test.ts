import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { redisPaymentBook } from '../../src/redis/index.js';
import { jsonLines, runCli } from '../helpers/cli-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { apiPixCliEnv, expectedCharges, startApiPix, txid } from './emulator-setup.js';

// Issue 36 §2: `pixhook reconcile --profile api-pix` passes the webhook's door — the book kept on its Redis, and the keys.
const handlers = fileURLToPath(new URL('./fixtures/pix-handlers.js', import.meta.url));
let redisServer: RedisServer;
let redis: Redis;
let emulator: ApiPixEmulator;
beforeAll(async () => {
  [redisServer, emulator] = await Promise.all([startRedisServer(), startApiPix()]);
  redis = new Redis(redisServer.url);
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await emulator?.close();
  await redisServer?.dispose();
});

describe('pixhook reconcile --profile api-pix with the book on its Redis', () => {
  it('holds a wrong-amount Pix (amount_mismatch) and a Pix to another key (unknown_key); runs only the right one', async () => {
    const book = redisPaymentBook({ client: redis });
    const from = new Date(Date.now() - 5_000).toISOString();
    const right = txid(1);
    const wrong = txid(2);
    await expectedCharges(emulator, book, [right, wrong], 2590);
    const paid = emulator.pay(right)['endToEndId'] as string;
    emulator.pay(wrong, { amountInCents: 100 });
    emulator.pixToKey({ amountInCents: 99_900, key: 'outra-loja@example.com', notify: false });
    await emulator.idle();

    const args = ['reconcile', '--profile', 'api-pix', '--redis', redisServer.url, '--handlers', handlers, '--once'];
    const window = ['--from', from, '--overlap', '0s', '--settle', '0s', '--key', emulator.credentials.pixKey];
    const result = await runCli([...args, ...window], { env: apiPixCliEnv(emulator), killAfterMs: 30_000 });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/handled \S+ reconcile/g)).toEqual([`handled ${paid} reconcile`]);
    expect(jsonLines(result.stdout).find((line) => line['type'] === 'summary')).toMatchObject({ recovered: 1, held: 2, failed: 0 });
    const held = await book.held();
    expect(held.map((entry) => entry.violations.map((violation) => violation.reason)).sort()).toEqual([
      ['amount_mismatch'],
      ['unknown_key', 'unknown_charge'],
    ]);

    // Again from the start (a cursor of its own): each is what it was (applied → duplicate, held → held); nothing runs twice.
    const again = await runCli([...args, ...window, '--prefix', 'again:'], { env: apiPixCliEnv(emulator), killAfterMs: 30_000 });
    expect(again.stderr).not.toMatch(/handled \S+ reconcile/);
    expect(jsonLines(again.stdout).find((line) => line['type'] === 'summary')).toMatchObject({ recovered: 0, held: 2, duplicates: 1 });
  }, 90_000);

  // Found from outside: with the account's key in PIXHOOK_API_PIX_KEY (as `pixhook emulator --profile api-pix` prints
  // it) but no --key, the listing ran a R$ 999 Pix to another key as this merchant's money.
  it('without --key, keeps to PIXHOOK_API_PIX_KEY: a Pix to another key is held as unknown_key, never run', async () => {
    const from = new Date(Date.now() - 2_000).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const foreign = emulator.pixToKey({ amountInCents: 99_900, key: 'outra-loja-2@example.com', notify: false })['endToEndId'] as string;
    const own = emulator.pixToKey({ amountInCents: 1_500, notify: false })['endToEndId'] as string;
    await emulator.idle();
    const args = ['reconcile', '--profile', 'api-pix', '--redis', redisServer.url, '--handlers', handlers, '--once'];
    const window = ['--from', from, '--overlap', '0s', '--settle', '0s', '--prefix', 'env-key:', '--book-prefix', 'env-key:{book}:'];
    const result = await runCli([...args, ...window], { env: apiPixCliEnv(emulator), killAfterMs: 30_000 });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/handled \S+ reconcile/g)).toEqual([`handled ${own} reconcile`]);
    const held = await redisPaymentBook({ client: redis, prefix: 'env-key:{book}:' }).held();
    expect(held.map((entry) => [entry.resourceId, entry.violations.map((violation) => violation.reason)])).toEqual([
      [`e2e:${foreign}`, ['unknown_key']],
    ]);
  }, 90_000);
});
