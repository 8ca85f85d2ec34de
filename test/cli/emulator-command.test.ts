import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { verifySignature, verifyTimestampedSignature } from '../../src/index.js';
import { envLines, startCli, type RunningCli } from '../helpers/cli-process.js';
import { startRecorder } from '../emulator/webhook-receiver.js';

// Runs the built CLI (`npm run build` first).
let running: RunningCli | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await running?.stop();
  running = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('pixhook emulator', () => {
  it('serves the gateway, prints generated credentials only, and delivers signed webhooks', async () => {
    running = startCli(['emulator', '--port', '0', '--variant', 'b', '--webhook-secret', 'whsec_cli_given', '--backoff-ms', '10']);
    await running.waitFor(/PIXHOOK_SECRET=.*\n/);
    const env = envLines(running.stdout());
    expect(env['PIXHOOK_BASE_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env['PIXHOOK_API_SECRET']).toMatch(/^sk_emu_/);
    expect(env['PIXHOOK_SECRET']).toBe('(as given)');

    const recorder = await startRecorder();
    cleanups.push(() => recorder.close());
    const client = createClient({
      apiKey: env['PIXHOOK_API_KEY']!,
      apiSecret: env['PIXHOOK_API_SECRET']!,
      baseUrl: env['PIXHOOK_BASE_URL']!,
      variant: 'b',
    });
    await client.webhooks.register({ url: recorder.url, events: ['transaction_paid'] });
    const charge = await client.createCharge({
      amountInCents: 1,
      customer: { name: 'Ana', email: 'ana@example.com', documentType: 'cpf', document: '52998224725' },
    });
    const paid = await fetch(`${env['PIXHOOK_BASE_URL']}/_emulator/transactions/${charge.id}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);

    await running.waitFor(/dlv_\d+ transaction_paid "txn_\w+" → "http:[^"]+" \[user\] delivered \(200\)/);
    expect(running.stderr()).toMatch(/dlv_\d+ attempt 1\/5 transaction_paid "txn_\w+" → "http:[^"]+" answered 200\n/);
    expect(recorder.received).toHaveLength(1);
    const [delivery] = recorder.received;
    const body = JSON.parse(delivery!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ event: 'transaction_paid', scope: 'user', transaction: { id: charge.id, amount: 1, status: 'paid' } });
    const check = await verifySignature({
      body: delivery!.body,
      signature: delivery!.headers['x-signature'] as string,
      secret: 'whsec_cli_given',
    });
    expect(check.ok).toBe(true);
    expect(running.stdout() + running.stderr()).not.toContain('whsec_cli_given');

    expect(await running.stop()).toBe(0);
  });

  it('signs with the timestamped scheme, logs each attempt JSON-escaped, and the give-up after the fifth', async () => {
    running = startCli([
      'emulator',
      '--port',
      '0',
      '--webhook-secret',
      'whsec_ts',
      '--backoff-ms',
      '1',
      '--signature-scheme',
      'timestamped',
      '--signature-header',
      'Vexy-Signature',
    ]);
    await running.waitFor(/PIXHOOK_SECRET=.*\n/);
    const env = envLines(running.stdout());
    const recorder = await startRecorder([500, 500, 500, 500, 500]);
    cleanups.push(() => recorder.close());
    const client = createClient({
      apiKey: env['PIXHOOK_API_KEY']!,
      apiSecret: env['PIXHOOK_API_SECRET']!,
      baseUrl: env['PIXHOOK_BASE_URL']!,
    });
    // A URL with a quote and a newline-like escape: it must stay inside one JSON string on one line.
    const url = `${recorder.url}?q=%22x%0Ay`;
    await client.webhooks.register({ url, events: ['transaction_paid'] });
    const charge = await client.createCharge({
      amountInCents: 100,
      customer: { name: 'Ana', email: 'ana@example.com', documentType: 'cpf', document: '52998224725', phone: '11999998888' },
    });
    await fetch(`${env['PIXHOOK_BASE_URL']}/_emulator/transactions/${charge.id}/pay`, { method: 'POST' });
    await running.waitFor(/gave up after 5 attempts/);
    const lines = running
      .stderr()
      .split('\n')
      .filter((line) => line.includes('transaction_paid'));
    expect(lines.filter((line) => / attempt \d\/5 /.test(line)).map((line) => /attempt (\d)\/5 .* answered 500/.exec(line)?.[1])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
    expect(lines.every((line) => line.includes(JSON.stringify(url)))).toBe(true);
    const header = recorder.received[0]?.headers['vexy-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await verifyTimestampedSignature({ body: recorder.received[0]!.body, signature: header, secret: 'whsec_ts' })).ok).toBe(true);
    expect(await running.stop()).toBe(0);
  });

  it('exits 2 on a timestamped scheme without a header', async () => {
    running = startCli(['emulator', '--signature-scheme', 'timestamped']);
    expect(await running.exited).toBe(2);
    expect(running.stderr()).toMatch(/needs --signature-header/);
  });

  it('exits 2 on a bad command line', async () => {
    running = startCli(['emulator', '--variant', 'c']);
    expect(await running.exited).toBe(2);
    expect(running.stderr()).toMatch(/--variant must be a, b or short/);
  });
});
