import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiPixClient } from '../../src/api-pix/index.js';
import { envLines, jsonLines, runCli, startCli, type RunningCli } from '../helpers/cli-process.js';

// Runs the built CLI (`npm run build` first).
const handlers = fileURLToPath(new URL('./fixtures/pix-handlers.js', import.meta.url));
let running: RunningCli | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('pixhook emulator --profile api-pix, pixhook reconcile --profile api-pix', () => {
  it('serves a standard PSP over mTLS and prints its certificates; reconcile recovers the Pix no webhook delivered', async () => {
    running = startCli(['emulator', '--profile', 'api-pix', '--port', '0', '--client-secret', 'given-secret']);
    await running.waitFor(/PIXHOOK_API_PIX_CLIENT_KEY=.*\n/);
    const env = envLines(running.stdout());
    expect(env['PIXHOOK_API_PIX_URL']).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(env['PIXHOOK_API_PIX_CLIENT_SECRET']).toBe('(as given)');
    expect(env['PIXHOOK_API_PIX_CA']).toMatch(/ca\.pem$/);
    expect(running.stdout() + running.stderr()).not.toContain('given-secret');

    const client = createApiPixClient({
      baseUrl: env['PIXHOOK_API_PIX_URL']!,
      clientId: env['PIXHOOK_API_PIX_CLIENT_ID']!,
      clientSecret: 'given-secret',
      cert: env['PIXHOOK_API_PIX_CLIENT_CERT']!,
      key: env['PIXHOOK_API_PIX_CLIENT_KEY']!,
      ca: env['PIXHOOK_API_PIX_CA']!,
      pixKey: env['PIXHOOK_API_PIX_KEY']!,
    });
    const from = new Date(Date.now() - 5_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const txid = `clitxid${i}abcdefghijklmnopqrstuvw`;
      await client.createCharge({ txid, amountInCents: 500 + i });
      // No webhook is configured: only the listing can find these.
      const paid = await payThroughControl(env, txid);
      ids.push(paid);
    }
    client.close();
    await new Promise((resolve) => setTimeout(resolve, 50));

    const result = await runCli(
      ['reconcile', '--profile', 'api-pix', '--handlers', handlers, '--once', '--from', from, '--overlap', '0s', '--settle', '0s'],
      {
        env: { ...env, PIXHOOK_API_PIX_CLIENT_SECRET: 'given-secret' },
        killAfterMs: 30_000,
      },
    );
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.filter((l) => l['type'] === 'recovered').map((l) => l['endToEndId'])).toEqual(ids);
    const summary = lines.find((l) => l['type'] === 'summary');
    expect(summary).toMatchObject({ recovered: 3, failed: 0, listed: 3 });
    expect(summary?.['lagMs']).toEqual(expect.any(Number));
    expect(result.stderr.match(/handled \w+ reconcile/g)).toHaveLength(3);
    expect(result.stdout + result.stderr).not.toContain('given-secret');
  });

  it('refuses an unknown profile and a missing connection', async () => {
    const bad = await runCli(['emulator', '--profile', 'stripe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--profile must be gateway or api-pix/);
    const missing = await runCli(['reconcile', '--profile', 'api-pix', '--handlers', handlers, '--once'], {
      env: { PIXHOOK_API_PIX_URL: undefined },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/PIXHOOK_API_PIX_URL is required/);
  });
});

/** The control endpoint is on the same mTLS server: reach it with the run's client certificate. */
async function payThroughControl(env: Record<string, string>, txid: string): Promise<string> {
  const { request } = await import('node:https');
  const { readFileSync } = await import('node:fs');
  return new Promise((resolve, reject) => {
    const req = request(
      `${env['PIXHOOK_API_PIX_URL']}/_emulator/cob/${txid}/pay`,
      {
        method: 'POST',
        cert: readFileSync(env['PIXHOOK_API_PIX_CLIENT_CERT']!),
        key: readFileSync(env['PIXHOOK_API_PIX_CLIENT_KEY']!),
        ca: readFileSync(env['PIXHOOK_API_PIX_CA']!),
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve((JSON.parse(text) as { endToEndId: string }).endToEndId));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
