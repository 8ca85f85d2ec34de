import { afterEach, describe, expect, it } from 'vitest';
import { shortPaid, variantAPaid, variantBPaid, variantBTransferCompleted } from '../contract/fixtures.js';
import { startCli, type RunningCli } from '../helpers/cli-process.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_cli_listen';
let running: RunningCli | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function listen(args: string[], env: NodeJS.ProcessEnv = {}) {
  running = startCli(['listen', '--port', '0', '--path', '/hook', ...args], env);
  const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/hook)/);
  return url!;
}

async function post(url: string, payload: unknown, withSecret = secret) {
  const body = bytesOf(payload);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, withSecret) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function printedEvents(cli: RunningCli): Record<string, unknown>[] {
  return cli
    .stdout()
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('pixhook listen', () => {
  it('answers the contract over real HTTP and prints one JSON line per handled event', async () => {
    const url = await listen(['--secret', secret]);
    expect(await post(url, variantAPaid)).toEqual({ status: 200, body: { ok: true } });
    expect(await post(url, variantBPaid)).toEqual({ status: 200, body: { ok: true } });
    expect(await post(url, shortPaid)).toEqual({ status: 200, body: { ok: true } });
    expect(await post(url, variantBTransferCompleted)).toEqual({ status: 200, body: { ok: true } });
    expect(await post(url, variantAPaid)).toEqual({ status: 200, body: { ok: true, reason: 'duplicate' } });
    expect((await post(url, variantAPaid, 'forged')).status).toBe(401);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    await running!.waitFor(/rejected 405 method_not_allowed/);

    const events = printedEvents(running!);
    expect(events.map((e) => [e['event'], e['id'], e['status'], e['amountInCents'], e['variant']])).toEqual([
      ['transaction_paid', 'tx_a_0001', 'paid', 15990, 'a'],
      ['transaction_paid', 'tx_b_0001', 'paid', 2500, 'b'],
      ['transaction_paid', 'tx_s_0001', 'paid', 990, 'short'],
      ['transfer_completed', 'tr_b_0001', 'completed', 7000, 'b'],
    ]);
    const stderr = running!.stderr();
    expect(stderr).toMatch(/acknowledged 200 duplicate transaction_paid "tx_a_0001"/);
    expect(stderr).toMatch(/rejected 401 signature_mismatch/);
    expect(stderr + running!.stdout()).not.toContain(secret);
  });

  it('takes the secret from PIXHOOK_SECRET and runs background mode', async () => {
    const url = await listen(['--mode', 'background'], { PIXHOOK_SECRET: secret });
    expect((await post(url, variantBPaid)).status).toBe(200);
    await running!.waitFor(/"id":"tx_b_0001"/);
    expect(running!.stderr()).toMatch(/mode background/);
  });

  it('exits 2 with the usage when no secret is given', async () => {
    running = startCli(['listen', '--port', '0'], { PIXHOOK_SECRET: '' });
    expect(await running.exited).toBe(2);
    expect(running.stderr()).toMatch(/secret is required/);
  });

  it('serves only the exact path, answering 405 for other methods there', async () => {
    const url = await listen(['--secret', secret]);
    expect((await fetch(`${url}/other`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(url, { method: 'PUT' })).status).toBe(405);
  });

  it('logs a request to an unknown path, escaped, naming the webhook path', async () => {
    // Issue 31: a sender posting to the wrong path got a 404 and the console of `listen` showed nothing.
    const url = await listen(['--secret', secret]);
    const other = `${new URL(url).origin}/webhook?token=hunter2`;
    const response = await fetch(other, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not_found' });
    await running!.waitFor(/404 "POST"/);
    expect(running!.stderr()).toContain(
      `pixhook: 404 "POST" "/webhook?token=***": not the webhook path "${new URL(url).pathname}" (--path sets it)`,
    );
  });

  it('exits 1 with one line when the port is taken, and 2 for an empty secret', async () => {
    const url = await listen(['--secret', secret]);
    const port = new URL(url).port;
    const second = startCli(['listen', '--port', port, '--secret', secret]);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/^pixhook: listen EADDRINUSE/);
    expect(second.stderr()).not.toMatch(/\n\s+at /);
    const empty = startCli(['listen', '--port', '0', '--secret', '']);
    expect(await empty.exited).toBe(2);
    expect(empty.stderr()).toMatch(/secret must not be empty/);
  });

  it('stops cleanly on SIGTERM', async () => {
    await listen(['--secret', secret]);
    expect(await running!.stop()).toBe(0);
  });
});
