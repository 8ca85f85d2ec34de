import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type JournalEntry } from '../../src/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli-process.js';

// Issue 31: `pixhook dev` signed with a secret it never printed, ignored PIXHOOK_SECRET, had no
// --secret, listened on /webhook where every doc says /webhooks/pix, and could not reach your own app.
const consoleUrl = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m;

async function startDev(args: string[], env: Record<string, string | undefined> = {}): Promise<{ dev: RunningCli; url: string }> {
  const dev = startCli(['dev', '--port', '0', ...args], { PIXHOOK_SECRET: undefined, ...env });
  const url = (await dev.waitFor(consoleUrl, 20_000))[1]!;
  return { dev, url };
}

const send = (url: string, secret: string, extra: string[] = []) =>
  runCli(['send', 'transaction_paid', '--url', url, '--secret', secret, '--backoff-ms', '0', ...extra], {
    env: { PIXHOOK_SECRET: undefined },
  });

async function deliveries(consoleBase: string): Promise<JournalEntry[]> {
  return (await (await fetch(`${consoleBase}api/deliveries`)).json()) as JournalEntry[];
}

describe('pixhook dev: its secret', () => {
  it('prints the secret it generated as PIXHOOK_SECRET=…, and `pixhook send` with it gets 200 at /webhooks/pix', async () => {
    const { dev, url } = await startDev([]);
    try {
      const secret = /^PIXHOOK_SECRET=(whsec_\S+)$/m.exec(dev.stdout())?.[1];
      expect(secret).toBeDefined();
      expect(dev.stdout()).toContain(`receiver at ${url}webhooks/pix`);
      const run = await send(`${url}webhooks/pix`, secret!);
      expect(run.stdout).toMatch(/delivered: 200 after 1 of 5 attempts/);
      expect(run.code).toBe(0);
      // The built-in receiver printed the event, and the journal holds it as verified.
      await expect.poll(() => dev.stdout()).toMatch(/"event":"transaction_paid"/);
      const [entry] = await deliveries(url);
      expect(entry).toMatchObject({ status: 200, verified: true, event: 'transaction_paid' });
      // A wrong secret is refused: the dev receiver really checks the one it printed.
      const wrong = await send(`${url}webhooks/pix`, 'whsec_not_it');
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toMatch(/401 signature_mismatch/);
    } finally {
      await dev.stop();
    }
  });

  // Issue 37: a secret the user gave is never printed, only named (a generated, dev-only one is).
  it('takes PIXHOOK_SECRET, and --secret over it, and prints neither', async () => {
    const fromEnv = await startDev([], { PIXHOOK_SECRET: 'whsec_from_env' });
    try {
      expect(fromEnv.dev.stdout()).toMatch(/webhooks signed with the secret from PIXHOOK_SECRET \(not printed\)/);
      expect(fromEnv.dev.stdout()).not.toContain('whsec_from_env');
      expect((await send(`${fromEnv.url}webhooks/pix`, 'whsec_from_env')).code).toBe(0);
    } finally {
      await fromEnv.dev.stop();
    }
    const fromFlag = await startDev(['--secret', 'whsec_from_flag'], { PIXHOOK_SECRET: 'whsec_from_env' });
    try {
      expect(fromFlag.dev.stdout()).toMatch(/webhooks signed with the secret from --secret \(not printed\)/);
      expect(fromFlag.dev.stdout()).not.toContain('whsec_from_flag');
      expect((await send(`${fromFlag.url}webhooks/pix`, 'whsec_from_flag')).code).toBe(0);
      expect((await send(`${fromFlag.url}webhooks/pix`, 'whsec_from_env', ['--attempts', '1'])).code).toBe(1);
    } finally {
      await fromFlag.dev.stop();
    }
  });

  it.each([
    [['--secret', ' '], /a webhook secret must not be empty/],
    [['--forward-to', 'ftp://example.com/x'], /--forward-to must be an http\(s\) URL/],
    [['--forward-to', 'http://127.0.0.1:9/x', '--handlers', 'h.js'], /--handlers and --forward-to exclude each other/],
  ])('refuses %j (exit 2)', async (args, message) => {
    const run = await runCli(['dev', '--port', '0', ...args], { killAfterMs: 15_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('pixhook dev --forward-to: your own app receives the deliveries, the console shows its answers', () => {
  const secret = 'whsec_dev_forward';
  let app: Server;
  let appUrl: string;
  const handled: string[] = [];
  let dev: RunningCli;
  let url: string;

  beforeAll(async () => {
    // The developer's app: a real pixhook receiver over node:http, whose handler fails for one charge.
    const receiver = createReceiver({ secret });
    receiver.on('transaction_paid', (event) => {
      if (event.transaction.id === 'txn_fails') throw new Error('the shop database is down');
      handled.push(event.transaction.id);
    });
    app = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks/pix`;
    ({ dev, url } = await startDev(['--secret', secret, '--forward-to', appUrl]));
  }, 30_000);
  afterAll(async () => {
    await dev?.stop();
    await new Promise((resolve) => app?.close(resolve));
  });

  it('says where it forwards', () => {
    expect(dev.stdout()).toContain(`forwarding each delivery to "${appUrl}"`);
  });

  it('a delivery reaches the app; the journal records the app’s 200 with its latency', async () => {
    const run = await send(`${url}webhooks/pix`, secret, ['--id', 'txn_forwarded']);
    expect(run.code).toBe(0);
    expect(handled).toEqual(['txn_forwarded']);
    await expect.poll(async () => (await deliveries(url)).find((e) => e.resourceId === 'txn_forwarded')).toBeDefined();
    const entry = (await deliveries(url)).find((e) => e.resourceId === 'txn_forwarded')!;
    expect(entry).toMatchObject({ status: 200, verified: true, event: 'transaction_paid', bodyBytes: expect.any(Number) });
    expect(entry.body).toContain('txn_forwarded');
    expect(entry.attempts).toHaveLength(1);
    expect(entry.attempts[0]).toMatchObject({ outcome: 'ok', durationMs: expect.any(Number) });
    // A Replay here would run dev's own receiver, not the app: the page offers none.
    const page = await (await fetch(`${url}deliveries/${encodeURIComponent(entry.id)}`)).text();
    expect(page).toContain('txn_forwarded');
    expect(page).not.toMatch(/\/replay"/);
  });

  it('the app’s 500 is the answer the sender gets, and the journal keeps its reason and words', async () => {
    const run = await send(`${url}webhooks/pix`, secret, ['--id', 'txn_fails', '--attempts', '1']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/500 handler_failed/);
    await expect.poll(async () => (await deliveries(url)).find((e) => e.resourceId === 'txn_fails')).toBeDefined();
    const entry = (await deliveries(url)).find((e) => e.resourceId === 'txn_fails')!;
    expect(entry).toMatchObject({ status: 500, reason: 'handler_failed', verified: true });
    expect(entry.attempts[0]).toMatchObject({ outcome: 'failed' });
    expect(entry.attempts[0]!.error).toContain(`your app at ${appUrl} answered 500`);
  });

  it('a forged delivery is answered by the app (401) and its body is not kept', async () => {
    const run = await send(`${url}webhooks/pix`, 'whsec_forged', ['--id', 'txn_forged']);
    expect(run.code).toBe(1);
    await expect.poll(async () => (await deliveries(url)).find((e) => e.status === 401)).toBeDefined();
    const entry = (await deliveries(url)).find((e) => e.status === 401)!;
    expect(entry).toMatchObject({ verified: false, reason: 'signature_mismatch' });
    expect(entry.body).toBeUndefined();
    expect(handled).not.toContain('txn_forged');
  });
});

describe('pixhook dev --forward-to an app that is not running', () => {
  it('answers 502 and records that the app did not answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { dev, url } = await startDev(['--secret', 'whsec_down', '--forward-to', `http://127.0.0.1:${port}/webhooks/pix`]);
    try {
      const run = await send(`${url}webhooks/pix`, 'whsec_down', ['--attempts', '1']);
      expect(run.stdout).toMatch(/attempt 1\/1 {2}502/);
      await expect.poll(async () => (await deliveries(url)).length).toBe(1);
      const [entry] = await deliveries(url);
      expect(entry).toMatchObject({ status: 502, verified: true });
      expect(entry!.attempts[0]!.error).toMatch(/did not answer/);
    } finally {
      await dev.stop();
    }
  });
});
