import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { pixhookBin, runCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// Runs the built CLI as a real process: `npm test` builds first; locally run `npm run build`.
const secret = 'whsec_cli_send';
const tempDir = useTempDirs('pixhook-send-');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// The parent's PIXHOOK_SECRET is dropped so each test says where its secret comes from.
function pixhook(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli(args, { env: { PIXHOOK_SECRET: undefined, ...env } });
}

/** `pixhook <args>` killed after 15 s at the latest (with no PIXHOOK_SECRET from the parent). */
function runBounded(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env['PIXHOOK_SECRET'];
    const child = spawn(process.execPath, [pixhookBin, ...args], {
      env,
      timeout: 15_000,
      killSignal: 'SIGKILL',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Target {
  url: string;
  handled: PixEvent[];
  requests: number;
  signatures: string[];
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A real receiver over node:http whose handler fails the first `failures` runs. */
async function startReceiver(failures: number): Promise<Target> {
  const receiver = createReceiver({ secret });
  const target: Target = { url: '', handled: [], requests: 0, signatures: [] };
  let runs = 0;
  receiver.onAny((event) => {
    runs++;
    if (runs <= failures) throw new Error(`planned failure ${runs}`);
    target.handled.push(event);
  });
  server = createServer(async (req, res) => {
    target.requests++;
    target.signatures.push(String(req.headers['x-signature']));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const result = await receiver.receive({ method: req.method, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(result.status, result.headers).end(result.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pix`;
  return target;
}

const attemptLines = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('attempt '));

describe('pixhook send (a real process against a real receiver)', () => {
  it('delivers on the first attempt, exits 0 and the handler sees the event as built', async () => {
    const target = await startReceiver(0);
    const run = await pixhook([
      'send',
      'transaction_paid',
      '--url',
      target.url,
      '--secret',
      secret,
      '--variant',
      'b',
      '--id',
      'txn_cli_1',
      '--amount',
      '4990',
    ]);
    expect(run.code).toBe(0);
    expect(attemptLines(run.stdout)).toHaveLength(1);
    expect(attemptLines(run.stdout)[0]).toMatch(/^attempt 1\/5 {2}200 {2}[\d.]+ ms {2}\d{4}-\d\d-\d\dT/);
    expect(run.stdout).toMatch(/delivered: 200 after 1 of 5 attempts/);
    expect(target.handled).toHaveLength(1);
    expect(target.handled[0]).toMatchObject({
      name: 'transaction_paid',
      variant: 'b',
      transaction: { id: 'txn_cli_1', amountInCents: 4990, status: 'paid' },
    });
  });

  it('a receiver that fails 3 times then succeeds: 4 attempts, exit 0', async () => {
    const target = await startReceiver(3);
    const run = await pixhook(['send', 'transfer_completed', '--url', target.url, '--backoff-ms', '5'], { PIXHOOK_SECRET: secret });
    expect(run.code).toBe(0);
    const lines = attemptLines(run.stdout);
    expect(lines).toHaveLength(4);
    expect(lines.slice(0, 3).every((line) => / 500 handler_failed /.test(line))).toBe(true);
    expect(lines.map((line) => line.match(/retry in (\d+) ms/)?.[1])).toEqual(['5', '10', '20', undefined]);
    expect(lines[3]).toMatch(/^attempt 4\/5 {2}200 /);
    expect(target.requests).toBe(4);
    expect(new Set(target.signatures).size).toBe(1); // every retry carries the same bytes and signature
    expect(target.handled).toHaveLength(1);
  });

  it('a receiver that always fails: exactly 5 attempts, exit 1', async () => {
    const target = await startReceiver(Number.POSITIVE_INFINITY);
    const run = await pixhook(['send', 'transaction_paid', '--url', target.url, '--secret', secret, '--backoff-ms', '1']);
    expect(run.code).toBe(1);
    expect(attemptLines(run.stdout)).toHaveLength(5);
    expect(run.stdout).toMatch(/not delivered: all 5 attempts failed \(last: status 500/);
    expect(target.requests).toBe(5);
    expect(target.handled).toHaveLength(0);
  });

  it('a wrong secret: stops at the first 401 with a hint to check the secret, and never prints it', async () => {
    // Issue 31: it retried the 401 five times (15 s) and never said to check the secret.
    const target = await startReceiver(0);
    const run = await pixhook(['send', 'transaction_paid', '--url', target.url, '--secret', 'not-the-secret']);
    expect(run.code).toBe(1);
    expect(attemptLines(run.stdout).map((line) => line.split('  ')[1])).toEqual(['401 signature_mismatch']);
    expect(attemptLines(run.stdout)[0]).not.toMatch(/retry in/);
    expect(run.stdout).toMatch(/not delivered: status 401, not retried/);
    expect(run.stderr).toMatch(/refused the delivery \(401\): check the secret/);
    expect(run.stdout + run.stderr).not.toContain('not-the-secret');
    expect(target.requests).toBe(1);
  });

  it('a 403 stops at once too, with the same hint', async () => {
    let requests = 0;
    server = createServer((req, res) => {
      requests++;
      req.resume().on('end', () => res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden'));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pix`;
    const run = await pixhook(['send', 'transaction_paid', '--url', url, '--secret', secret]);
    expect(run.code).toBe(1);
    expect(attemptLines(run.stdout)).toHaveLength(1);
    expect(run.stderr).toMatch(/refused the delivery \(403\): check the secret/);
    expect(requests).toBe(1);
  });

  it('--attempts bounds the retries', async () => {
    const target = await startReceiver(Number.POSITIVE_INFINITY);
    const run = await pixhook([
      'send',
      'transaction_paid',
      '--url',
      target.url,
      '--secret',
      secret,
      '--attempts',
      '2',
      '--backoff-ms',
      '0',
    ]);
    expect(run.code).toBe(1);
    expect(attemptLines(run.stdout).map((line) => line.split('  ')[1])).toEqual(['500 handler_failed', '500 handler_failed']);
    expect(target.requests).toBe(2);
  });

  it('--body sends the file byte for byte', async () => {
    const target = await startReceiver(0);
    const dir = tempDir();
    const file = join(dir, 'paid.json');
    await writeFile(file, '{\n  "event": "transaction_paid",\n  "data": { "id": "txn_file", "status": "paid", "amountInCents": 100 }\n}\n');
    const run = await pixhook(['send', '--body', file, '--url', target.url, '--secret', secret]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sending "transaction_paid" from');
    expect(target.handled[0]).toMatchObject({ variant: 'a', transaction: { id: 'txn_file', amountInCents: 100 } });
  });

  it('reports a refused connection per attempt and exits 1', async () => {
    const target = await startReceiver(0);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const run = await pixhook([
      'send',
      'transaction_paid',
      '--url',
      target.url,
      '--secret',
      secret,
      '--attempts',
      '2',
      '--backoff-ms',
      '0',
    ]);
    expect(run.code).toBe(1);
    expect(attemptLines(run.stdout).every((line) => line.includes('error "fetch failed: ECONNREFUSED"'))).toBe(true);
  });

  it("never prints the URL's password (nor a token in its query); its credentials go as HTTP Basic auth", async () => {
    const target = await startReceiver(0);
    let authorization: string | undefined;
    server!.prependListener('request', (req) => (authorization ??= req.headers.authorization));
    const url = target.url.replace('http://', 'http://merchant:hunter2@') + '?token=tok_s3cr3t';
    const run = await pixhook(['send', 'transaction_paid', '--url', url, '--secret', secret, '--attempts', '1']);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/hunter2|tok_s3cr3t/);
    expect(run.stdout).toContain(`to "${target.url.replace('http://', 'http://merchant:***@')}?token=***"`);
    expect(authorization).toBe(`Basic ${Buffer.from('merchant:hunter2').toString('base64')}`);
  });

  it('a refused URL with a password: the network error is printed with the password masked', async () => {
    const run = await pixhook([
      'send',
      'transaction_paid',
      '--url',
      'http://merchant:hunter2@127.0.0.1:9/x',
      '--secret',
      secret,
      '--attempts',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain('hunter2');
  });

  it('--id and --status holding an escape, a newline, a C1 CSI and U+2028 are printed escaped, on one line', async () => {
    const target = await startReceiver(0);
    const id = 'a\u001b[31m\nforged\u009b31m\u2028x';
    const run = await pixhook([
      'send',
      'transaction_paid',
      '--url',
      target.url,
      '--secret',
      secret,
      '--id',
      id,
      '--status',
      'paid\u202e\n',
    ]);
    expect(run.code).toBe(0);
    for (const raw of ['\u001b', '\u009b', '\u2028', '\u202e']) expect(run.stdout + run.stderr).not.toContain(raw);
    expect(run.stdout.split('\n')[0]).toBe(
      `sending transaction_paid (variant a, "a\\u001b[31m\\nforged\\u009b31m\\u2028x", "paid\\u202e\\n") to "${target.url}"`,
    );
    expect(run.stdout).not.toMatch(/^forged/m);
    const unknown = await pixhook(['send', 'evil\u001b[2J\nforged', '--url', target.url, '--secret', secret]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown event "evil\\u001b[2J\\nforged"');
  });

  it('--body /dev/zero stops at 64 MiB with one line and exit 1, instead of filling memory', async () => {
    // The kill after 15 s only keeps a failing run from eating the machine; the assertion is on the exit and the line.
    const run = await runBounded(['send', '--body', '/dev/zero', '--url', 'http://127.0.0.1:9/', '--secret', secret]);
    expect([run.code, run.stderr]).toEqual([1, 'pixhook: body_too_large: --body "/dev/zero" is larger than 67108864 bytes\n']);
  });

  it.each([
    [['send', 'transaction_paid', '--secret', secret], /--url <url> is required/],
    [['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/'], /secret is required/],
    [['send', 'transaction_teleported', '--url', 'http://127.0.0.1:9/', '--secret', secret], /unknown event "transaction_teleported"/],
    [['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', secret, '--variant', 'c'], /--variant must be a, b or short/],
    [
      ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', secret, '--amount', '12.50'],
      /`--amount` is in cents: an integer, e.g. 1990 for R\$ 19,90/,
    ],
    [['send', 'transaction_paid', '--url', 'ftp://x/', '--secret', secret], /--url must be http or https/],
    [
      ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', secret, '--attempts', '0'],
      /`--attempts` must be an integer from 1 to 100, got 0/,
    ],
    [['send', '--body', '/nonexistent/file.json', '--url', 'http://127.0.0.1:9/', '--secret', secret], /cannot read --body/],
    [['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', secret, '--wat'], /unknown flag '--wat'/],
  ])('usage error %j exits 2 without sending', async (args, message) => {
    const run = await pixhook(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^pixhook: [^\n]* \(pixhook send --help\)\n$/);
    expect(run.stdout).toBe('');
  });
});
