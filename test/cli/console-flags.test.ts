import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli-process.js';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';

// Issue 37: `pixhook console` read PIXHOOK_REDIS_URL but not PIXHOOK_POSTGRES_URL (exit 2 "needs --redis or
// --postgres"), and had no way to send the watchdog's alerts anywhere (`--alert-url`).
let postgres: PostgresServer;
const running: RunningCli[] = [];

beforeAll(async () => {
  postgres = await startPostgresServer();
}, 120_000);
afterAll(async () => {
  await Promise.all(running.map((cli) => cli.stop()));
  await postgres.dispose();
});

async function startConsole(args: string[], env: Record<string, string>): Promise<string> {
  const cli = startCli(['console', '--port', '0', ...args], { PIXHOOK_REDIS_URL: '', PIXHOOK_POSTGRES_URL: '', ...env });
  running.push(cli);
  return (await cli.waitFor(/^(http:\/\/[\d.]+:\d+)\/$/m, 30_000))[1]!;
}

describe('pixhook console', () => {
  it('takes its PostgreSQL from PIXHOOK_POSTGRES_URL, and serves /healthz over its journal and book', async () => {
    const url = await startConsole([], { PIXHOOK_POSTGRES_URL: postgres.url });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, checks: { book: { ok: true }, journal: { ok: true } } });
  }, 60_000);

  it('with --alert-url runs the watchdog: its alerts are served at /api/watchdog', async () => {
    const url = await startConsole(['--postgres', postgres.url, '--alert-url', 'http://127.0.0.1:9/hook'], {});
    const alerts = await fetch(`${url}/api/watchdog`);
    expect(alerts.status).toBe(200);
    expect(await alerts.json()).toEqual([]);
  }, 60_000);

  it('refuses an --alert-url that is not an http(s) URL, exit 2', async () => {
    const result = await runCli(['console', '--postgres', postgres.url, '--alert-url', 'ftp://example.com/hook']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--alert-url must be an http(s) URL');
  }, 60_000);
});
