import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { redisWatchStore } from '../../src/redis/index.js';
import { jsonLines, startCli, type RunningCli } from '../helpers/cli-process.js';
import { freePort } from '../helpers/free-port.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { paidGatewayCharges } from '../helpers/paid-gateway-charges.js';

// Runs the built CLI (`npm run build` first), against the emulator and a real redis-server.
const handlers = fileURLToPath(new URL('../reconcile/fixtures/handlers.js', import.meta.url));
let emulator: Emulator;
let redis: RedisServer;
let dir: string;
let running: RunningCli | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
  dir = await mkdtemp(join(tmpdir(), 'pixhook-reconcile-cli-'));
});
afterAll(async () => {
  await redis.dispose();
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await emulator?.close();
});

async function paidCharges(amounts: number[], watch?: { watch(id: string, createdAt?: number): unknown }) {
  const paid = await paidGatewayCharges(amounts, watch);
  emulator = paid.emulator;
  return paid;
}

describe('pixhook reconcile', () => {
  it('--once --charge: one JSON line per recovered event, a summary line, exit 0, handled once', async () => {
    const { ids, env } = await paidCharges([1990, 250]);
    const handled = join(dir, 'handled-once.jsonl');
    await writeFile(handled, '');
    running = startCli(['reconcile', '--handlers', handlers, '--once', ...ids.flatMap((id) => ['--charge', id])], {
      ...env,
      HANDLED_FILE: handled,
    });
    expect(await running.exited).toBe(0);
    const lines = jsonLines(running.stdout());
    expect(
      lines
        .slice(0, 2)
        .map((l) => [l['type'], l['chargeId'], l['amountInCents']])
        .sort(),
    ).toEqual(
      [
        ['recovered', ids[0], 1990],
        ['recovered', ids[1], 250],
      ].sort(),
    );
    expect(lines[0]).toMatchObject({
      event: 'transaction_paid',
      status: 'paid',
      source: 'reconcile',
      key: expect.stringMatching(/^transaction_paid:txn_\w+:paid:\d+:e2e=\w+$/),
    });
    expect(lines[2]).toEqual({
      type: 'summary',
      checked: 2,
      recovered: 2,
      finished: 2,
      deferred: 0,
      failed: 0,
      held: 0,
      watched: 0,
      lagMs: 0,
    });
    expect(jsonLines(await readFile(handled, 'utf8')).map((h) => h['source'])).toEqual(['reconcile', 'reconcile']);
    expect(running.stderr()).toMatch(/no --redis/);
    // Without --redis no book is used at all: said, not left to be guessed (it said only dedupe).
    expect(running.stderr()).toContain('no payment book judges the payments');
    expect(running.stdout() + running.stderr()).not.toContain(env.PIXHOOK_API_SECRET);
  });

  it('--redis: reads the watch list the app filled through the client, and dedupes in Redis', async () => {
    const client = new Redis(redis.url);
    try {
      const { ids, env } = await paidCharges([700, 800, 900], redisWatchStore({ client }));
      const handled = join(dir, 'handled-redis.jsonl');
      await writeFile(handled, '');
      const args = ['reconcile', '--handlers', handlers, '--once', '--redis', redis.url, '--min-age', '0s'];
      running = startCli(args, { ...env, HANDLED_FILE: handled });
      expect(await running.exited).toBe(0);
      expect(jsonLines(running.stdout()).at(-1)).toMatchObject({ type: 'summary', checked: 3, recovered: 3, watched: 0 });
      // A second run finds nothing left to follow.
      running = startCli(args, { ...env, HANDLED_FILE: handled });
      expect(await running.exited).toBe(0);
      expect(jsonLines(running.stdout())).toEqual([
        { type: 'summary', checked: 0, recovered: 0, finished: 0, deferred: 0, failed: 0, held: 0, watched: 0, lagMs: 0 },
      ]);
      expect(
        jsonLines(await readFile(handled, 'utf8'))
          .map((h) => h['id'])
          .sort(),
      ).toEqual([...ids].sort());
    } finally {
      client.disconnect();
    }
  });

  it('exits 1 when the gateway cannot be reached (the charge is read again later)', async () => {
    const port = await freePort();
    emulator = await startEmulator();
    running = startCli(['reconcile', '--handlers', handlers, '--once', '--charge', 'txn_1'], {
      PIXHOOK_API_KEY: 'pk',
      PIXHOOK_API_SECRET: 'sk_never_printed',
      PIXHOOK_BASE_URL: `http://127.0.0.1:${port}`,
      HANDLED_FILE: join(dir, 'unused.jsonl'),
    });
    expect(await running.exited).toBe(1);
    expect(jsonLines(running.stdout()).at(-1)).toMatchObject({ type: 'summary', checked: 1, failed: 1, watched: 1 });
    expect(running.stderr()).toMatch(/reading the charge failed; it is read again later \{"chargeId":"txn_1","error":"/);
    // Each wait before a retry is said as it starts: the run is never a silent stall.
    expect(running.stderr()).toContain('pixhook client: POST /api/auth got no answer; retry 1 of 3 in 500 ms');
    expect(running.stderr()).not.toContain('sk_never_printed');
  }, 20_000);

  it.each([
    [['--once', '--charge', 'x'], /--handlers <module> is required/],
    [['--handlers', handlers, '--once', '--every', '60s', '--charge', 'x'], /exclude each other/],
    [['--handlers', handlers, '--once'], /nothing to follow/],
    [['--handlers', handlers, '--every', 'soon', '--charge', 'x'], /--every must be a duration/],
  ])('exits 2 on a bad command line %#', async (args, message) => {
    emulator = await startEmulator();
    running = startCli(['reconcile', ...args], { PIXHOOK_API_KEY: 'pk', PIXHOOK_API_SECRET: 'sk', PIXHOOK_BASE_URL: emulator.url });
    expect(await running.exited).toBe(2);
    expect(running.stderr()).toMatch(message);
  });

  it('exits 2 when the credentials are not in the environment', async () => {
    emulator = await startEmulator();
    running = startCli(['reconcile', '--handlers', handlers, '--once', '--charge', 'x'], {
      PIXHOOK_API_KEY: '',
      PIXHOOK_API_SECRET: '',
      PIXHOOK_BASE_URL: '',
    });
    expect(await running.exited).toBe(2);
    expect(running.stderr()).toMatch(/set PIXHOOK_API_KEY, PIXHOOK_API_SECRET, PIXHOOK_BASE_URL/);
  });
});
