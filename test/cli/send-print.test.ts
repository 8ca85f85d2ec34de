import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/index.js';
import { runCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('pixhook-print-');

// Issue 37 §4: "a way to see a payload before sending it". `pixhook send … --print` prints the signed request
// (method, URL, headers, a blank line, the body) and sends nothing; the printed signature verifies with the library.
const secret = 'whsec_send_print';
let server: Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pix`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** The printed request: its first line, its headers and the exact body bytes (the last newline is the printer's). */
function parsed(stdout: string): { line: string; headers: Record<string, string>; body: string } {
  const end = stdout.indexOf('\n\n');
  const [line, ...headerLines] = stdout.slice(0, end).split('\n');
  const headers = Object.fromEntries(headerLines.map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 2)]));
  expect(stdout.endsWith('\n')).toBe(true);
  return { line: line!, headers, body: stdout.slice(end + 2, -1) };
}

const send = (args: string[]) => runCli(['send', ...args, '--print'], { env: { PIXHOOK_SECRET: undefined } });

describe('pixhook send --print', () => {
  it('prints the gateway request, whose signature verifies against the exact printed body; nothing is sent', async () => {
    const run = await send(['transaction_paid', '--url', url, '--secret', secret, '--id', 'txn_print', '--amount', '1990']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const request = parsed(run.stdout);
    expect(request.line).toBe(`POST ${url}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(request.body)).toMatchObject({ event: 'transaction_paid', data: { id: 'txn_print', amountInCents: 1990 } });
    expect(await verifySignature({ body: request.body, signature: request.headers['x-signature'], secret })).toMatchObject({ ok: true });
    expect(await verifySignature({ body: request.body, signature: request.headers['x-signature'], secret: 'whsec_other' })).toMatchObject({
      ok: false,
    });
    expect(run.stdout).not.toContain(secret);
    expect(requests).toBe(0);
  });

  it('a --body file is printed byte for byte, signed; credentials in the URL are masked', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const file = join(tempDir(), 'body.json');
    writeFileSync(file, '{ "event": "transaction_paid",\n  "data": {"id": "txn_file"} }');
    const withCredentials = url.replace('http://', 'http://shop:hunter2@');
    const run = await send(['--body', file, '--url', withCredentials, '--secret', secret]);
    expect(run.code).toBe(0);
    const request = parsed(run.stdout);
    expect(request.body).toBe('{ "event": "transaction_paid",\n  "data": {"id": "txn_file"} }');
    expect(await verifySignature({ body: request.body, signature: request.headers['x-signature'], secret })).toMatchObject({ ok: true });
    expect(request.headers['authorization']).toBe('Basic ***');
    expect(run.stdout).not.toContain('hunter2');
    expect(requests).toBe(0);
  });

  it('--profile api-pix: the standard call to <url>/pix, unsigned, its URL secret masked', async () => {
    const run = await send(['--profile', 'api-pix', '--url', url, '--secret', 'url-secret-s3cr3t', '--amount', '1990', '--txid', 'tx1']);
    expect(run.code).toBe(0);
    const request = parsed(run.stdout);
    expect(request.line).toMatch(new RegExp(`^POST ${url}/pix\\?secret=\\W+$`));
    expect(request.headers['x-signature']).toBeUndefined();
    expect(JSON.parse(request.body)).toMatchObject({ pix: [{ txid: 'tx1', valor: '19.90' }] });
    expect(run.stdout).not.toContain('url-secret-s3cr3t');
    expect(requests).toBe(0);
  });
});
