import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variantBPaid } from '../contract/fixtures.js';
import { receiverDefaultMaxBodyBytes } from '../../cli/shared/read-bounded-input.js';
import { createReceiver } from '../../src/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { pixhookBin, runCli } from '../helpers/cli-process.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const secret = 'whsec_cli_verify';
const body = bytesOf(variantBPaid);
const signature = signBytes(body, secret);
const tempDir = useTempDirs('pixhook-verify-');

describe('pixhook verify', () => {
  it('exits 0 for a valid signature over a file and describes the event', async () => {
    const file = join(tempDir(), 'body.json');
    writeFileSync(file, body);
    const result = await runCli(['verify', '--secret', secret, '--signature', signature, file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^valid: .*transaction_paid "tx_b_0001" "paid" 2500 cents \(variant b\)/);
  });

  it('exits 0 for a valid signature over stdin, byte for byte', async () => {
    const pretty = bytesOf(JSON.stringify(variantBPaid, null, 2));
    const result = await runCli(['verify', '--secret', secret, '--signature', signBytes(pretty, secret)], { input: pretty });
    expect(result.code).toBe(0);
  });

  it('exits 1 and says why for a wrong secret, without printing the secret', async () => {
    const result = await runCli(['verify', '--secret', 'wrong_secret_value', '--signature', signature], { input: body });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^invalid: signature_mismatch/);
    expect(result.stderr + result.stdout).not.toContain('wrong_secret_value');
  });

  it('exits 1 for a malformed signature, 2 (a usage error) when --signature is missing', async () => {
    const malformed = await runCli(['verify', '--secret', secret, '--signature', 'sha256=abc'], { input: body });
    expect([malformed.code, /signature_malformed/.test(malformed.stderr)]).toEqual([1, true]);
    const missing = await runCli(['verify', '--secret', secret], { input: body });
    expect([missing.code, /--signature <header value> is required/.test(missing.stderr)]).toEqual([2, true]);
  });

  it('says in one line, without a stack trace, that a body file is missing, and exits 2 like send --body', async () => {
    const result = await runCli(['verify', '--secret', secret, '--signature', signature, '/nonexistent/body.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^pixhook: cannot read body file "\/nonexistent\/body.json": ENOENT/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a second body file as a usage error', async () => {
    expect((await runCli(['verify', '--secret', secret, '--signature', signature, 'a.json', 'b.json'])).code).toBe(2);
  });

  it('exits 2 on a usage error', async () => {
    const result = await runCli(['verify', '--signature', signature, '--bogus'], { input: body, env: { PIXHOOK_SECRET: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("pixhook: unknown flag '--bogus' (pixhook verify --help)\n");
  });

  it('prints the command list for --help and exits 2 for an unknown command', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/^ {2}listen /m);
    expect((await runCli(['nope'])).code).toBe(2);
  });
});

/** `pixhook <args>` with stdin from `stdin` (a path), killed after 15 s at the latest. */
function runWithStdin(args: string[], stdin: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const input = openSync(stdin, 'r');
    const child = spawn(process.execPath, [pixhookBin, ...args], {
      stdio: [input, 'pipe', 'pipe'],
      timeout: 15_000,
      killSignal: 'SIGKILL',
    });
    closeSync(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Issue 20: `pixhook verify … /dev/zero` reached 5.5 GB of memory in 12 s. It now reads at most the
// receiver's maxBodyBytes (raw-body), then fails with one line and exit 1, the receiver's reason.
// The 15 s kill above only keeps a failing run from eating the machine: the assertions are on the exit and the line.
describe('pixhook verify reads at most maxBodyBytes', () => {
  const tooLarge = (what: string, limit = 1048576) =>
    `invalid: body_too_large: ${what} is larger than ${limit} bytes, the receiver's maxBodyBytes (--max-body-bytes raises it)\n`;

  it("its default is the receiver's maxBodyBytes", () => {
    expect(receiverDefaultMaxBodyBytes).toBe(internalsOf(createReceiver({ secret })).maxBodyBytes);
  });

  it('a body file /dev/zero: exit 1 with one line', async () => {
    const result = await runWithStdin(['verify', '--secret', secret, '--signature', signature, '/dev/zero'], '/dev/null');
    expect([result.code, result.stderr, result.stdout]).toEqual([1, tooLarge('body file "/dev/zero"'), '']);
  });

  it('stdin from /dev/zero: exit 1 with one line', async () => {
    const result = await runWithStdin(['verify', '--secret', secret, '--signature', signature], '/dev/zero');
    expect([result.code, result.stderr, result.stdout]).toEqual([1, tooLarge('stdin'), '']);
  });

  it('a file one byte over the limit is refused; at the limit, or under a raised --max-body-bytes, it is verified', async () => {
    const dir = tempDir();
    const atLimit = Buffer.alloc(1048576, 0x20);
    const over = Buffer.alloc(1048577, 0x20);
    writeFileSync(join(dir, 'at.bin'), atLimit);
    writeFileSync(join(dir, 'over.bin'), over);
    const refused = await runCli(['verify', '--secret', secret, '--signature', signBytes(over, secret), join(dir, 'over.bin')]);
    expect([refused.code, refused.stderr]).toEqual([1, tooLarge(`body file "${join(dir, 'over.bin')}"`)]);
    const at = await runCli(['verify', '--secret', secret, '--signature', signBytes(atLimit, secret), join(dir, 'at.bin')]);
    expect([at.code, at.stdout]).toEqual([0, 'valid: the signature matches 1048576 bytes; the body is not JSON\n']);
    const raised = await runCli(['verify', '--secret', secret, '--signature', signBytes(over, secret), '--max-body-bytes', '2000000'], {
      input: over,
    });
    expect(raised.code).toBe(0);
    const lowered = await runCli(['verify', '--secret', secret, '--signature', signature, '--max-body-bytes', '10'], { input: body });
    expect([lowered.code, lowered.stderr]).toEqual([1, tooLarge('stdin', 10)]);
  });

  it.each(['0', '-1', '1.5', '1073741825', 'lots'])('--max-body-bytes %s is a usage error', async (value) => {
    const result = await runCli(['verify', '--secret', secret, '--signature', signature, `--max-body-bytes=${value}`], { input: body });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^pixhook: --max-body-bytes must be an integer from 1 to 1073741824 \(1 GiB\)/);
  });
});
