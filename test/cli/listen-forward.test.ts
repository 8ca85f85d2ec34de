import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, sign, transactionPaid } from '../../src/testing/index.js';

// Runs the built CLI (`npm test` builds first; locally run `npm run build`).
const bin = join(import.meta.dirname, '../../bin/pixhook.js');
const secret = 'whsec_forward';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

let app: Server | undefined;
let listener: ChildProcessWithoutNullStreams | undefined;

afterEach(async () => {
  if (listener && listener.exitCode === null) {
    const exited = new Promise((resolve) => listener!.once('close', resolve));
    listener.kill('SIGTERM');
    await exited;
  }
  listener = undefined;
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  app = undefined;
});

/** The developer's real app: records every request and answers `status`. */
async function startApp(status: number) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  app = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(status, { 'content-type': 'application/json' }).end('{"app":true}');
    waiters.splice(0).forEach((wake) => wake());
  });
  await new Promise<void>((resolve) => app!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/pix`;
  /** Resolves once the app has received `n` requests. */
  const until = async (n: number) => {
    while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { url, received, until };
}

/** Starts `pixhook listen --forward-to` on a free port and resolves with its URL once it listens. */
function startListener(forwardTo: string) {
  const child = spawn(process.execPath, [bin, 'listen', '--port', '0', '--secret', secret, '--forward-to', forwardTo]);
  listener = child;
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      out.stderr += chunk.toString();
      const match = out.stderr.match(/listening on (\S+)/);
      if (match) resolve(match[1]!);
    });
    child.once('close', (code) => reject(new Error(`listen exited ${code}: ${out.stderr}`)));
  });
  /** Resolves once stderr holds `n` forward lines. */
  const forwards = async (n: number) => {
    while ((out.stderr.match(/pixhook: forwarded /g) ?? []).length < n) await new Promise((resolve) => child.stderr.once('data', resolve));
  };
  return { url, out, forwards };
}

describe('pixhook listen --forward-to', () => {
  it('verifies, prints, and forwards the original bytes and X-Signature to the app', async () => {
    const target = await startApp(200);
    const listen = startListener(target.url);
    const url = await listen.url;
    // Pretty-printed on purpose: a re-serialized body would differ and fail the app's verification.
    const body = JSON.stringify(transactionPaid({ id: 'txn_fwd_1', amountInCents: 3210, seed: 1 }), null, 2);
    const result = await deliver({ url, body, secret, retry: { attempts: 1 } });
    expect(result.finalStatus).toBe(200);
    await target.until(1);
    expect(target.received[0]!.body.toString()).toBe(body);
    expect(target.received[0]!.headers['x-signature']).toBe(await sign(body, secret));
    expect(target.received[0]!.headers['content-type']).toBe('application/json');
    await listen.forwards(1);
    expect(listen.out.stderr).toMatch(/forwarded transaction_paid "txn_fwd_1" to http:\/\/127\.0\.0\.1:\d+\/pix → 200/);
    expect(JSON.parse(listen.out.stdout.trim())).toMatchObject({ event: 'transaction_paid', id: 'txn_fwd_1', amountInCents: 3210 });
  });

  it('never forwards a delivery whose signature failed; forwards duplicates so the app sees them too', async () => {
    const target = await startApp(200);
    const listen = startListener(target.url);
    const url = await listen.url;
    const forged = await deliver({ url, body: transactionPaid({ id: 'txn_forged', seed: 2 }), secret: 'wrong', retry: { attempts: 1 } });
    expect(forged.finalStatus).toBe(401);
    const body = transactionPaid({ id: 'txn_twice', seed: 3 });
    await deliver({ url, body, secret, retry: { attempts: 1 } });
    const second = await deliver({ url, body, secret, retry: { attempts: 1 } });
    expect(second.attempts[0]!.responseBody).toContain('duplicate');
    await target.until(2);
    await listen.forwards(2);
    expect(target.received.map((r) => (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id)).toEqual([
      'txn_twice',
      'txn_twice',
    ]);
    expect(listen.out.stderr).not.toContain('txn_forged');
  });

  it("prints the app's failure without changing the listener's answer", async () => {
    const target = await startApp(500);
    const listen = startListener(target.url);
    const url = await listen.url;
    const result = await deliver({ url, body: transactionPaid({ id: 'txn_app_down', seed: 4 }), secret, retry: { attempts: 1 } });
    expect(result.finalStatus).toBe(200);
    await listen.forwards(1);
    expect(listen.out.stderr).toMatch(/forwarded transaction_paid "txn_app_down" to \S+ → 500/);
  });

  it('rejects a --forward-to that is not an http(s) URL with exit 2', async () => {
    const child = spawn(process.execPath, [bin, 'listen', '--port', '0', '--secret', secret, '--forward-to', 'localhost:3000']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--forward-to must be an http(s) URL');
  });
});
