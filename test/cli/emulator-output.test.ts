import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { envLines, startCli, type RunningCli } from '../helpers/cli-process.js';
import { startRecorder } from '../emulator/webhook-receiver.js';

// Issue 20: credentials masked in every URL a command prints; the emulator's request bodies read
// with raw-body, bounded (413). Runs the built CLI (`npm run build` first).
let running: RunningCli | undefined;
let emulator: Emulator | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await emulator?.close();
  emulator = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A raw POST: `chunks` written one by one (chunked unless `contentLength` is given); resolves with the status. */
function post(url: string, chunks: Buffer[], contentLength?: number): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(contentLength !== undefined && { 'content-length': contentLength }) },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      },
    );
    // The emulator may answer 413 and close before the whole body is written: that is the point.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    const write = (i: number) => {
      if (i === chunks.length) return void req.end();
      if (req.destroyed) return;
      req.write(chunks[i], () => setImmediate(() => write(i + 1)));
    };
    write(0);
  });
}

describe('pixhook emulator: what it prints', () => {
  it('a webhook URL with a password: every line shows it masked, the password is never printed', async () => {
    running = startCli(['emulator', '--port', '0', '--backoff-ms', '1']);
    await running.waitFor(/PIXHOOK_SECRET=.*\n/);
    const env = envLines(running.stdout());
    const recorder = await startRecorder();
    cleanups.push(() => recorder.close());
    const client = createClient({
      apiKey: env['PIXHOOK_API_KEY']!,
      apiSecret: env['PIXHOOK_API_SECRET']!,
      baseUrl: env['PIXHOOK_BASE_URL']!,
    });
    const url = recorder.url.replace('http://', 'http://merchant:hunter2@');
    await client.webhooks.register({ url, events: ['transaction_paid'] });
    const charge = await client.createCharge({
      amountInCents: 100,
      customer: { name: 'Ana', email: 'ana@example.com', documentType: 'cpf', document: '52998224725', phone: '11999998888' },
    });
    await fetch(`${env['PIXHOOK_BASE_URL']}/_emulator/transactions/${charge.id}/pay`, { method: 'POST' });
    await running.waitFor(/transaction_paid "txn_\w+" → "[^"]+" \[user\] (delivered|gave up)/);
    const lines = running
      .stderr()
      .split('\n')
      .filter((line) => line.includes('transaction_paid'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every((line) => line.includes(`"${recorder.url.replace('http://', 'http://merchant:***@')}"`))).toBe(true);
    expect(running.stdout() + running.stderr()).not.toContain('hunter2');
  });
});

describe('the emulator reads request bodies with a bound', () => {
  it('answers 413 to a body over 1 MiB: declared by content-length, or streamed chunked; 1 MiB itself is read', async () => {
    emulator = await startEmulator({ port: 0 });
    const target = `${emulator.url}/api/auth`;
    const mib = 1024 * 1024;
    const declared = await post(target, [Buffer.alloc(16, 0x20)], 64 * mib);
    expect(declared.status).toBe(413);
    expect(declared.body).toContain('PAYLOAD_TOO_LARGE');
    const streamed = await post(
      target,
      Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 0x20)),
    );
    expect(streamed.status).toBe(413);
    const atLimit = await post(target, [Buffer.alloc(mib, 0x20)]);
    expect(atLimit.status).not.toBe(413);
    expect(
      emulator
        .requests()
        .map((r) => r.status)
        .slice(-3),
    ).toEqual([413, 413, atLimit.status]);
  });
});
