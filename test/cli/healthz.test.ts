import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

// GET /healthz on `pixhook listen`, `worker` (--health-port) and `console`: 200 and every check ok while Redis
// answers; Redis stopped, 503 with the failing check and a detail; Redis back, 200 again. Real processes, real Redis.
let redis: RedisServer;
let dir = '';
const running: RunningCli[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  dir = mkdtempSync(join(tmpdir(), 'pixhook-healthz-'));
  writeFileSync(join(dir, 'handlers.mjs'), 'export default function register(p) { p.onAny(() => {}); }\n');
}, 60_000);
afterAll(async () => {
  await Promise.all(running.map((cli) => cli.stop()));
  await redis.dispose();
  rmSync(dir, { recursive: true, force: true });
});

interface Health {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

async function healthOf(url: string): Promise<{ status: number; body: Health }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Health };
}

/** Polls /healthz until it answers `status` (Redis takes a moment to be seen down or back). */
async function until(url: string, status: number): Promise<Health> {
  let last: { status: number; body: Health } | undefined;
  for (let i = 0; i < 200; i++) {
    last = await healthOf(url);
    if (last.status === status) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/healthz never answered ${status}: last ${JSON.stringify(last)}`);
}

async function start(args: string[], ready: RegExp): Promise<string> {
  const cli = startCli(args, { PIXHOOK_SECRET: 'whsec_healthz_test', PIXHOOK_REDIS_URL: '' });
  running.push(cli);
  const match = await cli.waitFor(ready, 30_000);
  return match[1]!;
}

describe('GET /healthz', () => {
  it('listen, worker and console: 200 while Redis answers, 503 naming the failing check while it is down, 200 once back', async () => {
    const listen = await start(['listen', '--port', '0', '--redis', redis.url, '--mode', 'durable'], /listening on (http:\/\/[\d.]+:\d+)/);
    const worker = await start(
      ['worker', '--redis', redis.url, '--handlers', join(dir, 'handlers.mjs'), '--health-port', '0'],
      /health at (http:\/\/\S+\/healthz)/,
    );
    const consoleUrl = await start(['console', '--redis', redis.url, '--port', '0'], /^(http:\/\/[\d.]+:\d+)\/$/m);
    const urls = { listen: `${listen}/healthz`, worker, console: `${consoleUrl}/healthz` };

    expect((await healthOf(urls.listen)).body).toEqual({ ok: true, checks: { store: { ok: true }, queue: { ok: true } } });
    expect(await healthOf(urls.worker)).toEqual({ status: 200, body: { ok: true, checks: { queue: { ok: true } } } });
    expect(await healthOf(urls.console)).toEqual({
      status: 200,
      body: { ok: true, checks: { book: { ok: true }, journal: { ok: true } } },
    });

    await redis.stop();
    const down = await Promise.all([until(urls.listen, 503), until(urls.worker, 503), until(urls.console, 503)]);
    expect(down[0].checks['store']).toMatchObject({ ok: false, detail: expect.stringMatching(/redis|connect/i) });
    expect(down[1].checks['queue']).toMatchObject({ ok: false, detail: expect.any(String) });
    expect(down[2].ok).toBe(false);
    for (const health of down) expect(JSON.stringify(health)).not.toContain('whsec_');

    await redis.start();
    await Promise.all([until(urls.listen, 200), until(urls.worker, 200), until(urls.console, 200)]);
  }, 120_000);
});
