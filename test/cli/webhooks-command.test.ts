import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { pixhookBin } from '../helpers/cli-process.js';

// Runs the built CLI (`npm run build` first) against an in-process emulator.
let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

function run(args: string[], env: Record<string, string | undefined>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const clean = { ...process.env };
    for (const name of ['PIXHOOK_API_KEY', 'PIXHOOK_API_SECRET', 'PIXHOOK_BASE_URL']) delete clean[name];
    const child = spawn(process.execPath, [pixhookBin, 'webhooks', ...args], { env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // 'close' (not 'exit') so every byte of output has arrived.
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function setup() {
  emulator = await startEmulator();
  const env = {
    PIXHOOK_API_KEY: emulator.credentials.apiKey,
    PIXHOOK_API_SECRET: emulator.credentials.apiSecret,
    PIXHOOK_BASE_URL: emulator.url,
  };
  return { env, emulator };
}

describe('pixhook webhooks', () => {
  it('registers, lists and deletes with credentials from the environment', async () => {
    const { env, emulator: emu } = await setup();
    const registered = await run(
      ['register', '--url', 'https://shop.example/pix', '--event', 'transaction_paid', '--event', 'transfer_completed,transfer_updated'],
      env,
    );
    expect(registered).toMatchObject({ code: 0, stderr: '' });
    const [id, url, events] = registered.stdout.trim().split('\t');
    expect(emu.webhooks()).toMatchObject([
      { id, url: 'https://shop.example/pix', events: ['transaction_paid', 'transfer_completed', 'transfer_updated'] },
    ]);
    expect([url, events]).toEqual(['https://shop.example/pix', 'transaction_paid,transfer_completed,transfer_updated']);

    const listed = await run(['list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id, url: 'https://shop.example/pix' }]);

    expect(await run(['delete', id!], env)).toMatchObject({ code: 0, stdout: `deleted ${id}\n` });
    expect(emu.webhooks()).toEqual([]);
    expect(await run(['list'], env)).toMatchObject({ code: 0, stdout: '' });
  });

  it('takes --events as a comma list, and subscribes to every event when none is named', async () => {
    const { env, emulator: emu } = await setup();
    expect((await run(['register', '--url', 'https://a.example/pix', '--events', 'transaction_paid,transaction_created'], env)).code).toBe(
      0,
    );
    expect((await run(['register', '--url', 'https://b.example/pix'], env)).code).toBe(0);
    const [first, second] = emu.webhooks();
    expect(first?.events).toEqual(['transaction_paid', 'transaction_created']);
    expect(second?.events).toEqual([
      'transaction_created',
      'transaction_paid',
      'transaction_refunded',
      'transaction_updated',
      'transfer_created',
      'transfer_completed',
      'transfer_canceled',
      'transfer_updated',
    ]);
  });

  it('exits 1 when the gateway refuses, without printing the secret', async () => {
    const { env } = await setup();
    const missing = await run(['delete', 'wh_nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/DELETE \/api\/v1\/webhook\/wh_nope → 404 NOT_FOUND/);

    const badSecret = await run(['list'], { ...env, PIXHOOK_API_SECRET: 'sk_definitely_wrong' });
    expect(badSecret.code).toBe(1);
    expect(badSecret.stderr).toMatch(/401 UNAUTHORIZED/);
    expect(badSecret.stderr + badSecret.stdout).not.toContain('sk_definitely_wrong');
  });

  it('exits 2 on usage errors, before any request', async () => {
    const { env, emulator: emu } = await setup();
    expect((await run(['list'], {})).stderr).toMatch(/PIXHOOK_API_KEY, PIXHOOK_API_SECRET, PIXHOOK_BASE_URL/);
    for (const args of [
      [],
      ['rename'],
      ['register', '--events', 'transaction_paid'],
      ['register', '--url', 'https://a.example', '--event', 'order_paid'],
      ['register', '--url', 'ftp://a.example', '--event', 'transaction_paid'],
      ['delete'],
    ]) {
      expect((await run(args, env)).code, args.join(' ')).toBe(2);
    }
    expect(emu.requests()).toEqual([]);
  });
});
