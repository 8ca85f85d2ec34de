import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variantBPaid } from '../contract/fixtures.js';
import { runCli } from '../helpers/cli-process.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_cli_verify';
const body = bytesOf(variantBPaid);
const signature = signBytes(body, secret);

describe('pixhook verify', () => {
  it('exits 0 for a valid signature over a file and describes the event', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pixhook-')), 'body.json');
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
    expect(result.stderr).toMatch(/usage: pixhook verify/);
  });

  it('prints the command list for --help and exits 2 for an unknown command', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/pixhook listen/);
    expect((await runCli(['nope'])).code).toBe(2);
  });
});
