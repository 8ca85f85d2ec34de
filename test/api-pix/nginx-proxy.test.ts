// `proxy` mode behind a real nginx (Debian's package), set up verbatim from docs/guides/api-pix.md: the guide's two
// server blocks (the mTLS one that alone sends the proxy's secret, and an ordinary site on the same app) and the
// guide's Express receiver, run as its own process from the built package. Only ports, file paths, addresses and
// the secret's placeholder are substituted. The emulator is the PSP: its run's certificates are nginx's and the
// PSP's, and it delivers through nginx.
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { linkPackage, markedBlock, repoRoot } from '../docs/doc-files.js';
import { requireBuiltPackage, startExample, type RunningExample } from '../examples/example-process.js';
import { freePort } from '../helpers/free-port.js';
import { startNginx, type NginxServer } from '../helpers/nginx-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { clientFor, startApiPix, txid } from '../api-pix-client/emulator-setup.js';

const guide = readFileSync(join(repoRoot, 'docs/guides/api-pix.md'), 'utf8');
const tempDir = useTempDirs('pixhook-nginx-guide-');
// A caller that is not nginx connects from here; nginx (and the app) use 127.0.0.1.
const elsewhere = '127.0.0.2';

interface Pem {
  cert: string;
  key: string;
}

let emulator: ApiPixEmulator;
let serverCa: string;
let psp: Pem;
let pspFingerprint: string;
let nginx: NginxServer;
let app: RunningExample;
let appPort: number;
let plainPort: number;
const secret = randomBytes(32).toString('hex');

/** `text` with `from` replaced by `to`, which must occur exactly `times` times: a guide edit cannot slip past. */
function replaced(text: string, from: string, to: string, times = 1): string {
  expect(text.split(from).length - 1, `"${from}" in the guide`).toBe(times);
  return text.replaceAll(from, to);
}

beforeAll(async () => {
  await requireBuiltPackage();
  emulator = await startApiPix();
  const pem = (path: string) => readFileSync(path, 'utf8');
  serverCa = pem(emulator.certificates.ca);
  psp = { cert: pem(emulator.certificates.clientCert), key: pem(emulator.certificates.clientKey) };
  pspFingerprint = new X509Certificate(psp.cert).fingerprint;

  // The guide's receiver, as its own process.
  const dir = tempDir();
  linkPackage(dir);
  appPort = await freePort();
  let receiver = markedBlock(guide, 'api-pix: proxy receiver');
  receiver = replaced(receiver, "from: ['10.0.0.10']", "from: ['127.0.0.1']");
  receiver = replaced(receiver, 'app.listen(3000);', `app.listen(${String(appPort)}, '127.0.0.1');`);
  writeFileSync(join(dir, 'server.mjs'), receiver);
  app = await startExample({
    command: process.execPath,
    args: ['server.mjs'],
    cwd: dir,
    env: { PIX_PROXY_SECRET: secret },
    waitFor: `http://127.0.0.1:${String(appPort)}/webhooks/bank`,
  });

  // The guide's nginx config.
  plainPort = await freePort();
  // The emulator trusts the server certificate it made; nginx trusts the emulator's CA for the PSP's.
  const files = {
    'merchant.pem': pem(emulator.certificates.serverCert),
    'merchant-key.pem': pem(emulator.certificates.serverKey),
    'psp-ca.pem': serverCa,
  };
  nginx = await startNginx(files, (port, dir) => {
    let config = markedBlock(guide, 'api-pix: nginx');
    config = replaced(config, 'listen 443 ssl;', `listen 127.0.0.1:${String(port)} ssl;`);
    config = replaced(config, 'listen 80;', `listen 127.0.0.1:${String(plainPort)};`);
    config = replaced(config, '/etc/nginx/', `${dir}/`, 3);
    config = replaced(config, 'http://10.0.0.20:3000', `http://127.0.0.1:${String(appPort)}`, 2);
    return replaced(config, '"<the PIX_PROXY_SECRET value>"', `"${secret}"`);
  });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await app?.stop();
  // Its certificates live in a temp directory of its own: closing removes it.
  await emulator?.close();
});

interface Sent {
  port: number;
  tls?: { client: Pem | undefined };
  localAddress?: string;
  headers?: Record<string, string>;
}

function send({ port, tls, localAddress, headers = {} }: Sent, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      path: '/webhooks/bank/pix',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', ...headers },
      ...(localAddress !== undefined && { localAddress }),
    } as const;
    const collect = (res: import('node:http').IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    };
    const req =
      tls === undefined
        ? httpRequest(options, collect)
        : httpsRequest(
            {
              ...options,
              servername: 'localhost',
              ca: serverCa,
              ...(tls.client !== undefined && { cert: tls.client.cert, key: tls.client.key }),
            },
            collect,
          );
    req.on('error', reject);
    req.end(body);
  });
}

const handled = (endToEndId: string) => app.stdout().some((line) => line.startsWith(`received ${endToEndId} `));
/** What a forger sends: the verdict, the pinned certificate's fingerprint (public), and a guessed proxy secret. */
const forged = () => ({
  'X-SSL-Client-Verify': 'SUCCESS',
  'X-SSL-Client-Fingerprint': pspFingerprint,
  'X-Pixhook-Proxy-Secret': randomBytes(32).toString('hex'),
});

describe('API Pix proxy mode behind a real nginx, as the guide sets it up (issue 37)', () => {
  it("handles the PSP's call through the mTLS server block: the handler runs", async () => {
    const pix = apiPixPix();
    const answer = await send({ port: nginx.port, tls: { client: psp } }, apiPixBody([pix]));
    expect(answer.status, answer.body).toBe(200);
    await expect.poll(() => handled(pix.endToEndId)).toBe(true);
  });

  it('the emulator, as the PSP, delivers through the mTLS block: the handler runs, the delivery is answered 200', async () => {
    const client = clientFor(emulator);
    try {
      await client.configureWebhook(`https://127.0.0.1:${String(nginx.port)}/webhooks/bank`);
      await client.createCharge({ txid: txid(37), amountInCents: 2590 });
      const paid = emulator.pay(txid(37));
      await emulator.idle();
      expect(emulator.deliveries()).toMatchObject([{ state: 'delivered', attempts: [{ status: 200 }] }]);
      await expect.poll(() => handled(String(paid['endToEndId']))).toBe(true);
    } finally {
      client.close();
    }
  });

  it('nginx itself refuses a client without a certificate on the mTLS block', async () => {
    const pix = apiPixPix();
    const answer = await send({ port: nginx.port, tls: { client: undefined } }, apiPixBody([pix])).catch(() => ({ status: 0, body: '' }));
    expect(answer.status).not.toBe(200);
    expect(handled(pix.endToEndId)).toBe(false);
  });

  it('forged headers through the plain site block are refused: 401 proxy_secret_mismatch (was 200 and a forged Pix ran)', async () => {
    const pix = apiPixPix({ amountInCents: 500_000 });
    const answer = await send({ port: plainPort, headers: forged() }, apiPixBody([pix]));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'proxy_secret_mismatch' });
    // The refusal is logged once with its reason, the peer and the cause; never the secret.
    await expect
      .poll(() => app.stderr())
      .toMatch(/pixhook: API Pix call refused .*"reason":"proxy_secret_mismatch".*"peer":"(::ffff:)?127\.0\.0\.1"/);
    expect(app.stderr()).toMatch(/no x-pixhook-proxy-secret header/);
    expect(app.stderr()).not.toContain(secret);
    expect(handled(pix.endToEndId)).toBe(false);
  });

  it('the same forged headers straight to the app are refused: 403 from another address, 401 from nginx’s own', async () => {
    const pix = apiPixPix();
    const around = await send({ port: appPort, localAddress: elsewhere, headers: forged() }, apiPixBody([pix]));
    expect(around.status).toBe(403);
    expect(JSON.parse(around.body)).toMatchObject({ error: 'address_not_allowed' });
    await expect
      .poll(() => app.stderr())
      .toMatch(/"reason":"address_not_allowed".*"hint":"the address seen, (::ffff:)?127\.0\.0\.2, is not one of auth\.proxy\.from/);
    const beside = await send({ port: appPort, localAddress: '127.0.0.1', headers: forged() }, apiPixBody([pix]));
    expect(beside.status).toBe(401);
    expect(JSON.parse(beside.body)).toMatchObject({ error: 'proxy_secret_mismatch' });
    expect(handled(pix.endToEndId)).toBe(false);
  });

  it("the guide's plain block clears the client-supplied verify, fingerprint and secret headers; only the mTLS block sets the secret", () => {
    const config = markedBlock(guide, 'api-pix: nginx');
    const blocks = config.split(/^server \{$/m).slice(1);
    expect(blocks).toHaveLength(2);
    const [mtls, plain] = blocks as [string, string];
    expect(mtls).toMatch(/ssl_verify_client on;/);
    expect(mtls).toMatch(/proxy_set_header X-Pixhook-Proxy-Secret "[^"]+";/);
    for (const name of ['X-SSL-Client-Verify', 'X-SSL-Client-Fingerprint', 'X-Pixhook-Proxy-Secret'])
      expect(plain).toContain(`proxy_set_header ${name} "";`);
  });
});
