// `pixhook send --profile api-pix` against `pixhook listen --profile api-pix`: two real processes, real mTLS.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { makeCa, makeLeaf } from '../helpers/test-certificates.js';

const tempDir = useTempDirs('pixhook-apipix-send-');
const files: Record<'serverCert' | 'serverKey' | 'serverCa' | 'pspCa' | 'pspCert' | 'pspKey' | 'otherCert' | 'otherKey', string> = {
  serverCert: '',
  serverKey: '',
  serverCa: '',
  pspCa: '',
  pspCert: '',
  pspKey: '',
  otherCert: '',
  otherKey: '',
};
let listener: RunningCli;
let url: string;

beforeAll(async () => {
  const [serverCa, pspCa, otherCa] = await Promise.all([makeCa('Merchant CA'), makeCa('PSP Root CA'), makeCa('Other CA')]);
  const [server, psp, other] = await Promise.all([
    makeLeaf(serverCa, 'localhost', 'server'),
    makeLeaf(pspCa, 'webhook.psp.example', 'client'),
    makeLeaf(otherCa, 'webhook.other.example', 'client'),
  ]);
  const dir = tempDir();
  const write = (name: keyof typeof files, text: string) => {
    files[name] = join(dir, `${name}.pem`);
    writeFileSync(files[name], text);
  };
  write('serverCert', server.cert);
  write('serverKey', server.key);
  write('serverCa', serverCa.cert);
  write('pspCa', pspCa.cert);
  write('pspCert', psp.cert);
  write('pspKey', psp.key);
  write('otherCert', other.cert);
  write('otherKey', other.key);
  listener = startCli([
    'listen',
    '--profile',
    'api-pix',
    '--port',
    '0',
    '--path',
    '/webhooks/bank',
    '--tls-cert',
    files.serverCert,
    '--tls-key',
    files.serverKey,
    '--tls-ca',
    files.pspCa,
  ]);
  [, url] = (await listener.waitFor(/listening on (https:\/\/\S+)/, 20_000)) as [string, string];
}, 40_000);

afterAll(() => listener?.stop());

const send = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(['send', '--profile', 'api-pix', ...args], { env: { PIXHOOK_SECRET: undefined, ...env } });
const withPsp = () => ['--url', url, '--cert', files.pspCert, '--key', files.pspKey, '--cacert', files.serverCa];
const handledLines = (kind: string, id: string) =>
  listener
    .stdout()
    .split('\n')
    .filter((line) => line.includes(`"event":"${kind}"`) && line.includes(id));

describe('pixhook send --profile api-pix', () => {
  it('delivers one Pix over mTLS to {url}/pix: exit 0, handled once', async () => {
    const run = await send([...withPsp(), '--id', 'E00000000202611270000ABCDEF01234', '--amount', '11000', '--txid', 'cob0001']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sending API Pix call (1 Pix, wrapped, "E00000000202611270000ABCDEF01234", "cob0001")');
    expect(run.stdout).toMatch(/^attempt 1\/5 {2}200 /m);
    expect(run.stdout).toMatch(/^delivered: 200 after 1 of 5 attempts/m);
    await listener.waitFor(/E00000000202611270000ABCDEF01234/);
    const lines = handledLines('pix_received', 'E00000000202611270000ABCDEF01234');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('11000');
  });

  it('--txid none sends a Pix without a txid (a static QR code, a key transfer)', async () => {
    const run = await send([...withPsp(), '--id', 'E00000000202611270000NOTXID0001', '--txid', 'none']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"E00000000202611270000NOTXID0001", null)');
    await listener.waitFor(/E00000000202611270000NOTXID0001/);
    const [line] = handledLines('pix_received', 'E00000000202611270000NOTXID0001');
    expect(line).not.toContain('"none"');
    expect(line).not.toMatch(/"txid"/);
  });

  it('delivers a batch as a bare array, each item its own event', async () => {
    const run = await send([...withPsp(), '--count', '3', '--shape', 'bare', '--txid', 'batchtx0001', '--seed', '7']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sending API Pix call (3 Pix, bare)');
    // Each item is an event of its own; the shared txid shows in each.
    await expect.poll(() => handledLines('pix_received', 'batchtx0001').length, { timeout: 10_000 }).toBe(3);
  });

  it('delivers a refund: the devolução becomes pix_refund_updated', async () => {
    const run = await send([...withPsp(), '--refund', 'NAO_REALIZADO', '--txid', 'refundtx0001']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Pix with a devolução NAO_REALIZADO');
    await expect
      .poll(
        () =>
          listener
            .stdout()
            .split('\n')
            .filter((line) => line.includes('"event":"pix_refund_updated"')).length,
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(1);
    expect(listener.stdout()).toContain('not_returned');
  });

  it('a certificate from another CA is refused in the handshake: exit 1, nothing handled', async () => {
    const before = listener.stdout();
    const run = await send([
      '--url',
      url,
      '--cert',
      files.otherCert,
      '--key',
      files.otherKey,
      '--cacert',
      files.serverCa,
      '--attempts',
      '1',
      '--txid',
      'forged0001',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^attempt 1\/1 {2}error /m);
    expect(run.stdout).toMatch(/^not delivered: all 1 attempt failed/m);
    expect(listener.stdout().slice(before.length)).not.toContain('forged0001');
  });

  it('refuses usage errors before sending: flags of the other profile, a lone --cert, a bad --count', async () => {
    const cases: [string[], RegExp][] = [
      [['--url', url, 'transaction_paid'], /not an event/],
      [['--url', url, '--variant', 'b'], /not signed/],
      [['--url', url, '--cert', files.pspCert], /--cert and --key go together/],
      [[...withPsp(), '--count', '0'], /--count must be an integer from 1 to 1000/],
      [[...withPsp(), '--refund', 'devolvido'], /--refund must be/],
      [['--url', url], /a webhook secret is required/],
    ];
    for (const [args, message] of cases) {
      const run = await send(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const gateway = await runCli(['send', 'transaction_paid', '--url', url, '--count', '2'], { env: { PIXHOOK_SECRET: 'whsec_x' } });
    expect(gateway.code).toBe(2);
    expect(gateway.stderr).toContain('--count apply to --profile api-pix only');
  });
});

describe('pixhook send --profile api-pix with a URL secret', () => {
  it('puts the secret in the query, never in its output; a wrong one is a 401 not retried', async () => {
    const secret = 'send-url-secret-0123456789abcdef';
    const cli = startCli(['listen', '--profile', 'api-pix', '--port', '0', '--path', '/webhooks/bank'], { PIXHOOK_SECRET: secret });
    try {
      const [, plain] = (await cli.waitFor(/listening on (http:\/\/\S+)/, 20_000)) as [string, string];
      const ok = await send(['--url', plain, '--txid', 'secrettx0001'], { PIXHOOK_SECRET: secret });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('/webhooks/bank/pix?secret=***');
      expect(ok.stdout + ok.stderr).not.toContain(secret);
      await cli.waitFor(/secrettx0001/);
      const wrong = await send(['--url', plain, '--secret', 'wrong-secret-0123456789abcdef']);
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toMatch(/^attempt 1\/5 {2}401 url_secret_mismatch/m);
      expect(wrong.stdout).toMatch(/not retried/);
      // The hint names the real cause the answer's reason gives (it was the certificate's, for every refusal).
      expect(wrong.stderr).toContain(
        "url_secret_mismatch: the URL secret does not match: --secret (or PIXHOOK_SECRET) must be the receiver's",
      );
      expect(wrong.stderr).not.toContain('check the client certificate');
      expect(wrong.stdout + wrong.stderr).not.toContain('wrong-secret-0123456789abcdef');
    } finally {
      await cli.stop();
    }
  });
});
