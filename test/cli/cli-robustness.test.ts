import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { pixhookBin, runCli, startCli, type RunningCli } from '../helpers/cli-process.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 11's CLI holes, each driven as a user would: a real process, real HTTP.
const secret = 'whsec_cli_robust';
const body = JSON.stringify({ event: 'transaction_paid', data: { id: 'tx_cli', status: 'paid', amountInCents: 100 } });
let running: RunningCli | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const oneLine = (stderr: string) => stderr.trim().split('\n');

describe('secrets', () => {
  it('an empty secret is refused by verify (exit 2), even with a signature made with it', async () => {
    const result = await runCli(['verify', '--secret', '', '--signature', signBytes(body, '')], { input: body });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/secret must not be empty/);
  });

  it('PIXHOOK_SECRET is one secret, never split on commas', async () => {
    const env = { PIXHOOK_SECRET: 'abc,def' };
    expect((await runCli(['verify', '--signature', signBytes(body, 'abc,def')], { input: body, env })).code).toBe(0);
    expect((await runCli(['verify', '--signature', signBytes(body, 'abc')], { input: body, env })).code).toBe(1);
  });

  it('a list of secrets is a repeated --secret (rotation)', async () => {
    const result = await runCli(['verify', '--secret', 'old', '--secret', 'new', '--signature', signBytes(body, 'new')], { input: body });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/secret #2/);
  });
});

describe('one-line errors and exit codes', () => {
  it('listen --host 999.1.1.1: one line, exit 1, no stack trace', async () => {
    const result = await runCli(['listen', '--secret', secret, '--host', '999.1.1.1', '--port', '0']);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("--port '' is a usage error, not a random port", async () => {
    const result = await runCli(['listen', '--secret', secret, '--port', '']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port must be an integer/);
  });

  it('worker --handlers ./missing.js: one line, exit 2', async () => {
    const result = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--handlers', './missing.js']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^pixhook: --handlers "\.\/missing\.js": no such module/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('listen --mode durable with an unreachable Redis says it is waiting, then exits 1 after --redis-wait', async () => {
    const startedAt = Date.now();
    const result = await runCli([
      'listen',
      '--secret',
      secret,
      '--port',
      '0',
      '--mode',
      'durable',
      '--redis',
      'redis://127.0.0.1:1',
      '--redis-wait',
      '2s',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/waiting for Redis at redis:\/\/127\.0\.0\.1:1 \(ECONNREFUSED; trying every second for up to 2 s\)/);
    expect(result.stderr).toMatch(/^pixhook: Redis at redis:\/\/127\.0\.0\.1:1 did not answer within 2 s \(ECONNREFUSED; \d+ attempts\)$/m);
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  });

  it('a missing input file is exit 2 for send --body and verify alike', async () => {
    expect((await runCli(['send', '--body', '/nonexistent.json', '--url', 'http://127.0.0.1:9/', '--secret', secret])).code).toBe(2);
    expect((await runCli(['verify', '--secret', secret, '--signature', signBytes(body, secret), '/nonexistent.json'])).code).toBe(2);
  });
});

describe('listen output', () => {
  it('`listen | head -c 10` ends quietly (exit 0) on EPIPE instead of crashing', async () => {
    const child = spawn(process.execPath, [pixhookBin, 'listen', '--secret', secret, '--port', '0']);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve) => {
      const poll = setInterval(() => {
        const match = /listening on (\S+)/.exec(stderr);
        if (match) resolve((clearInterval(poll), match[1]!));
      }, 20);
    });
    // Like `head -c 10`: read ten bytes of stdout, then close the pipe.
    await new Promise<void>((resolve) => {
      child.stdout.once('data', () => {
        child.stdout.destroy();
        resolve();
      });
      void deliverPaid(url, 'tx_pipe_0');
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 1; i < 20; i++) await deliverPaid(url, `tx_pipe_${i}`).catch(() => undefined);
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('untrusted strings are printed JSON-encoded on stdout and stderr: no forged line, no escape sequence', async () => {
    running = startCli(['listen', '--port', '0', '--secret', secret]);
    const [, url] = await running.waitFor(/listening on (\S+)/);
    // C0 (\n, ESC), C1 (U+009B: a one-character ESC [) and U+2028 must all come out escaped.
    const evilId = 'tx_evil\npixhook: rejected 401 signature_mismatch FORGED\u001b[31m\u009b31m\u2028x';
    await deliverPaid(url!, evilId);
    await deliverPaid(url!, evilId); // a duplicate: printed on stderr with its id
    await deliverRaw(url!, { event: 'evil_event\nforged line\u001b[0m', data: {} });
    await running.waitFor(/acknowledged 200 unknown_event/);
    for (const output of [running.stdout(), running.stderr()])
      for (const raw of ['\u001b', '\u009b', '\u2028']) expect(output).not.toContain(raw);
    expect(running.stderr()).not.toMatch(/^pixhook: rejected 401 signature_mismatch FORGED/m);
    expect(running.stderr()).not.toMatch(/^forged line/m);
    const printed = running
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(printed.map((p) => p.id)).toEqual([evilId]);
  });
});

describe('the timestamped signature scheme on the CLI', () => {
  it('listen, send and verify take --signature-scheme timestamped --signature-header', async () => {
    const flags = ['--signature-scheme', 'timestamped', '--signature-header', 'Vexy-Signature'];
    running = startCli(['listen', '--port', '0', '--secret', secret, ...flags]);
    const [, url] = await running.waitFor(/listening on (\S+)/);
    const sent = await runCli(['send', 'transaction_paid', '--url', url!, '--secret', secret, '--attempts', '1', ...flags]);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/delivered: 200/);
    // The sha256 scheme's header is not what this listener reads.
    const wrong = await runCli(['send', 'transaction_paid', '--url', url!, '--secret', secret, '--attempts', '1', '--id', 'tx_other']);
    expect(wrong.stdout).toMatch(/401 signature_missing/);
    const t = Math.floor(Date.now() / 1000);
    const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
    expect((await runCli(['verify', '--secret', secret, '--signature', header, ...flags], { input: body })).code).toBe(0);
    expect((await runCli(['verify', '--secret', secret, '--signature', header], { input: body })).code).toBe(1);
    expect(
      (await runCli(['verify', '--secret', secret, '--signature', header, '--signature-scheme', 'timestamped'], { input: body })).code,
    ).toBe(2);
  });
});

async function deliverPaid(url: string, id: string): Promise<number> {
  return deliverRaw(url, { event: 'transaction_paid', data: { id, status: 'paid', amountInCents: 100 } });
}

async function deliverRaw(url: string, payload: unknown): Promise<number> {
  const bytes = bytesOf(payload);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signBytes(bytes, secret) },
    body: bytes,
  });
  return res.status;
}
