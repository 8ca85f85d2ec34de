// `pixhook send --profile <psp>`, in process: one payment webhook signed as each PSP signs it, received by
// a createPspReceiver (its confirmation API an emulator of the same PSP, where the body is only a hint).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeHandler } from '../../../adapters/node/index.js';
import { sendCommand } from '../../../cli/send-command.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { PixEvent } from '../../../src/index.js';
import { createPspReceiver, type PspSourceOptions } from '../../../src/psp/index.js';
import { signPagBank, signWoovi } from '../../../src/testing/index.js';
import { useTempDirs } from '../../helpers/temp-dirs.js';

const tempDir = useTempDirs('pixhook-send-psp-');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const item of open.splice(0).reverse()) await item.close();
});

async function serve(options: PspSourceOptions): Promise<{ url: string; paid: PixEvent[] }> {
  const receiver = createPspReceiver(options);
  const paid: PixEvent[] = [];
  receiver.on('transaction_paid', (event) => void paid.push(event));
  const server = createServer(createNodeHandler(receiver));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, paid };
}

async function send(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  const code = await sendCommand([...args, '--attempts', '1']);
  vi.restoreAllMocks();
  return { code, out, err };
}

describe('pixhook send --profile <psp>', () => {
  it('Mercado Pago: the id-only notification, x-signature over the manifest; the receiver fetches the payment and runs once', async () => {
    const emulator = await startEmulator({ profile: 'mercado-pago', credentials: { secret: 'mp-secret' } });
    open.push(emulator);
    const charge = emulator.createCharge({ amountInCents: 1990 });
    await emulator.pay(charge.id);
    const { secret, accessToken } = emulator.credentials;
    const target = await serve({ psp: 'mercado-pago', secret: secret!, accessToken: accessToken!, apiBaseUrl: emulator.url });
    const run = await send(['--profile', 'mercado-pago', '--url', target.url, '--secret', 'mp-secret', '--id', charge.id]);
    expect(run.out).toContain('delivered: 200');
    expect(run.code).toBe(0);
    expect(target.paid.map((e) => e.kind === 'transaction' && e.transaction.amountInCents)).toEqual([1990]);
    const wrong = await send(['--profile', 'mercado-pago', '--url', target.url, '--secret', 'another', '--id', charge.id]);
    expect([wrong.code, wrong.out.includes('401 signature_mismatch')]).toEqual([1, true]);
  });

  it.each([
    ['asaas', { psp: 'asaas', token: 'tok-asaas' }, ['--secret', 'tok-asaas']],
    ['pagbank', { psp: 'pagbank', token: 'tok-pagbank' }, ['--secret', 'tok-pagbank']],
  ] as const)('%s: signed with --secret, handled once with --amount', async (psp, options, flags) => {
    const target = await serve(options);
    const run = await send(['--profile', psp, '--url', target.url, ...flags, '--amount', '4200']);
    expect(run.code).toBe(0);
    expect(target.paid.map((e) => e.kind === 'transaction' && e.transaction.amountInCents)).toEqual([4200]);
  });

  it('Woovi: signed with --key (RSA private key PEM); Pagar.me: the --secret in the URL, the charge fetched', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const keyFile = join(tempDir(), 'woovi.pem');
    writeFileSync(keyFile, privateKey);
    const woovi = await serve({ psp: 'woovi', publicKeys: [publicKey] });
    expect((await send(['--profile', 'woovi', '--url', woovi.url, '--key', keyFile])).code).toBe(0);
    expect(woovi.paid).toHaveLength(1);
    const missingKey = await send(['--profile', 'woovi', '--url', woovi.url]);
    expect([missingKey.code, missingKey.err]).toEqual([2, expect.stringContaining('--key <private key PEM file>')]);

    const emulator = await startEmulator({ profile: 'pagarme' });
    open.push(emulator);
    const charge = emulator.createCharge({ amountInCents: 990 });
    await emulator.pay(charge.id);
    const pagarme = await serve({
      psp: 'pagarme',
      secretKey: emulator.credentials['secretKey']!,
      urlSecret: { secret: 'url-s' },
      apiBaseUrl: emulator.url,
    });
    expect((await send(['--profile', 'pagarme', '--url', pagarme.url, '--secret', 'url-s', '--id', charge.id])).code).toBe(0);
    expect(pagarme.paid.map((e) => e.kind === 'transaction' && e.transaction.id)).toEqual([charge.id]);
  });

  // Found from outside: without --secret, Pagar.me's webhook went out with no URL secret (refused 401, exit 1)
  // instead of a usage error.
  it('Pagar.me: without --secret (nor PIXHOOK_SECRET) a usage error, exit 2, one line naming --secret; nothing sent', async () => {
    let requests = 0;
    const server = createServer((_, response) => (requests++, response.end('{}')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    vi.stubEnv('PIXHOOK_SECRET', '');
    try {
      for (const extra of [[], ['--print']]) {
        const run = await send(['--profile', 'pagarme', '--url', url, '--id', 'ch_1', ...extra]);
        expect(run.code).toBe(2);
        expect(run.err).toContain('--secret');
        expect(run.err.trim().split('\n')).toHaveLength(1);
        expect(run.out).toBe('');
      }
      // The secret given twice (in --url and with --secret) is refused too: one of them would be ignored.
      const twice = await send(['--profile', 'pagarme', '--url', `${url}?secret=a`, '--secret', 'b', '--id', 'ch_1']);
      expect([twice.code, twice.err]).toEqual([2, expect.stringContaining('drop the secret parameter from --url')]);
      expect(requests).toBe(0);
      // PIXHOOK_SECRET serves as --secret does: it goes in the URL.
      vi.stubEnv('PIXHOOK_SECRET', 'env-url-s');
      const printed = await send(['--profile', 'pagarme', '--url', url, '--id', 'ch_1', '--print']);
      expect(printed.code).toBe(0);
      expect(printed.out).toContain('?secret=***');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  // Found from outside: --print printed the gateway's request (an `x-signature: sha256=` made from --secret) instead
  // of the PSP's, and Woovi's --print asked for a gateway secret (exit 2).
  it('--print prints the request as the PSP signs it (its own headers, no gateway x-signature), the token masked', async () => {
    const body = (out: string): string => out.slice(out.indexOf('\n\n') + 2, -1);
    const header = (out: string, name: string): string | undefined =>
      out
        .slice(0, out.indexOf('\n\n'))
        .split('\n')
        .find((line) => line.startsWith(`${name}: `))
        ?.slice(name.length + 2);
    const pagbank = await send(['--profile', 'pagbank', '--url', 'http://127.0.0.1:9/x', '--secret', 'tok-pb', '--print']);
    expect(pagbank.code).toBe(0);
    expect(header(pagbank.out, 'x-signature')).toBeUndefined();
    expect(header(pagbank.out, 'x-authenticity-token')).toBe(await signPagBank({ token: 'tok-pb', body: body(pagbank.out) }));
    const asaas = await send(['--profile', 'asaas', '--url', 'http://127.0.0.1:9/x', '--secret', 'tok-asaas-secret', '--print']);
    expect([asaas.code, header(asaas.out, 'asaas-access-token'), header(asaas.out, 'x-signature')]).toEqual([0, '***', undefined]);
    expect(asaas.out).not.toContain('tok-asaas-secret');
    const mp = await send(['--profile', 'mercado-pago', '--url', 'http://127.0.0.1:9/x', '--secret', 'mp-s', '--id', '123', '--print']);
    expect(header(mp.out, 'x-signature')).toMatch(/^ts=\d+,v1=[0-9a-f]{64}$/);
    expect(header(mp.out, 'x-request-id')).toBeDefined();
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const keyFile = join(tempDir(), 'woovi-print.pem');
    writeFileSync(keyFile, privateKey);
    const woovi = await send(['--profile', 'woovi', '--url', 'http://127.0.0.1:9/x', '--key', keyFile, '--print']);
    expect([woovi.code, woovi.err]).toEqual([0, '']);
    expect(header(woovi.out, 'x-webhook-signature')).toBe(signWoovi({ privateKey, body: body(woovi.out) }));
  });

  it('refuses the other profiles’ flags and a wrong --status', async () => {
    const variant = await send(['--profile', 'asaas', '--url', 'http://127.0.0.1:9/x', '--secret', 's', '--variant', 'b']);
    expect([variant.code, variant.err]).toEqual([2, expect.stringContaining('--profile asaas does not take --variant')]);
    const key = await send(['--profile', 'asaas', '--url', 'http://127.0.0.1:9/x', '--secret', 's', '--key', 'k.pem']);
    expect(key.err).toContain('does not take --key');
    const event = await send(['transaction_paid', '--profile', 'pagbank', '--url', 'http://127.0.0.1:9/x', '--secret', 's']);
    expect(event.err).toContain('not an event');
    const status = await send(['--profile', 'pagbank', '--url', 'http://127.0.0.1:9/x', '--secret', 's', '--status', 'refunded']);
    expect(status.err).toContain('--status must be paid or pending');
    const profile = await send(['--profile', 'stripe', '--url', 'http://127.0.0.1:9/x', '--secret', 's']);
    expect(profile.err).toContain('--profile must be gateway, api-pix, mercado-pago');
  });

  it('Woovi: a --key that cannot be read, or holds no RSA private key, is a usage error (exit 2), its content never printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pixhook-send-key-'));
    try {
      const missing = await send(['--profile', 'woovi', '--url', 'http://127.0.0.1:9/x', '--key', join(dir, 'none.pem')]);
      expect([missing.code, missing.err]).toEqual([2, expect.stringMatching(/cannot read --key ".*none\.pem": ENOENT/)]);
      const ed25519 = join(dir, 'ed25519.pem');
      writeFileSync(ed25519, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const junk = join(dir, 'junk.pem');
      writeFileSync(junk, 'not-a-key-secret-material');
      for (const path of [ed25519, junk]) {
        const wrong = await send(['--profile', 'woovi', '--url', 'http://127.0.0.1:9/x', '--key', path]);
        expect([wrong.code, wrong.err]).toEqual([2, expect.stringContaining('holds no RSA private key (PEM)')]);
        expect(wrong.err).not.toContain('not-a-key-secret-material');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
