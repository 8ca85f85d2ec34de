// docs/guides/api-pix.md run as written against real servers (issue 37): the URL-secret setup against the emulator,
// which appends /pix to the registered URL as PSPs do, and the mTLS receiver on Node over real TLS with per-run
// certificates. Each snippet runs as its own Node process from the built package; only file paths and the port
// are substituted (the URL-secret block needs none).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { linkPackage, markedBlock, repoRoot } from '../docs/doc-files.js';
import { requireBuiltPackage } from '../examples/example-process.js';
import { freePort } from '../helpers/free-port.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { clientFor, startApiPix, txid } from '../api-pix-client/emulator-setup.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from '../helpers/test-certificates.js';

const run = promisify(execFile);
const guide = readFileSync(join(repoRoot, 'docs/guides/api-pix.md'), 'utf8');
const tempDir = useTempDirs('pixhook-api-pix-guide-');

/** A project that resolves `pixhook` to this repository's built package, as an ES module package. */
function project(): string {
  const dir = tempDir();
  linkPackage(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pix-app', private: true, type: 'module' }));
  return dir;
}

function replaced(text: string, from: string, to: string, times = 1): string {
  expect(text.split(from).length - 1, `"${from}" in the guide`).toBe(times);
  return text.replaceAll(from, to);
}

beforeAll(() => requireBuiltPackage(), 60_000);

describe('the URL-secret setup of the guide against the emulator, which appends /pix (issue 37)', () => {
  const script = markedBlock(guide, 'api-pix: url secret with the emulator');

  it('runs verbatim: the secret in a path segment survives the /pix, the handler runs and the delivery is answered 200', async () => {
    const dir = project();
    writeFileSync(join(dir, 'try-url-secret.js'), script);
    const { stdout } = await run(process.execPath, ['try-url-secret.js'], { cwd: dir, timeout: 60_000 });
    expect(stdout).toMatch(/^received E\S+ 2590$/m);
    expect(stdout).toMatch(/^delivery delivered 200$/m);
  });

  it('the query form the guide also names (?secret=<s>, called as ?secret=<s>/pix) is answered 200 too (was 401 url_secret_mismatch)', async () => {
    const dir = project();
    writeFileSync(join(dir, 'try-url-secret.js'), replaced(script, '/webhooks/bank/${secret}`', '/webhooks/bank?secret=${secret}`'));
    const { stdout } = await run(process.execPath, ['try-url-secret.js'], { cwd: dir, timeout: 60_000 });
    expect(stdout).toMatch(/^received E\S+ 2590$/m);
    expect(stdout).toMatch(/^delivery delivered 200$/m);
  });
});

describe("the guide's mTLS receiver on Node, over real TLS (issue 37)", () => {
  let serverCa: TestCa;
  let psp: TestLeaf;
  let spoofed: TestLeaf;
  let child: ChildProcess;
  let port: number;
  let out = '';
  let err = '';

  beforeAll(async () => {
    let pspCa: TestCa;
    [serverCa, pspCa] = await Promise.all([makeCa('Merchant CA'), makeCa('PSP Root CA')]);
    const server = await makeLeaf(serverCa, 'localhost', 'server');
    psp = await makeLeaf(pspCa, 'webhook.psp.example', 'client');
    // The PSP's CA, the pinned name as CN, another name as its DNS SAN: RFC 6125 reads the SAN.
    spoofed = await makeLeaf(pspCa, 'webhook.psp.example', 'client', ['attacker.example']);
    const dir = project();
    for (const [name, text] of Object.entries({ 'psp-ca.pem': pspCa.cert, 'server.pem': server.cert, 'server-key.pem': server.key }))
      writeFileSync(join(dir, name), text);
    port = await freePort();
    let code = markedBlock(guide, 'api-pix: mtls receiver');
    code = replaced(code, '/etc/pixhook/', `${dir}/`, 3);
    code = replaced(code, 'server.listen(8443);', `server.listen(${String(port)}, '127.0.0.1');`);
    writeFileSync(join(dir, 'server.js'), code);
    child = spawn(process.execPath, ['server.js'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    await listening(port, child);
  }, 60_000);

  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  const call = (client: TestLeaf, body: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/pix',
          method: 'POST',
          servername: 'localhost',
          agent: false,
          ca: serverCa.cert,
          cert: client.cert,
          key: client.key,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  it("handles the PSP's certificate (its DNS SAN is the pinned name)", async () => {
    const pix = apiPixPix({ key: 'loja@example.com' });
    const answer = await call(psp, apiPixBody([pix]));
    expect(answer.status, answer.body).toBe(200);
    await expect.poll(() => out).toContain(`received ${pix.endToEndId} `);
  });

  it('refuses a certificate whose CN is the pinned name but whose SAN is not: 401, logged as the name pin (was 200)', async () => {
    const pix = apiPixPix({ key: 'loja@example.com' });
    const answer = await call(spoofed, apiPixBody([pix]));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'client_certificate_rejected' });
    await expect
      .poll(() => err)
      .toMatch(
        /"reason":"client_certificate_rejected".*"peer":"(::ffff:)?127\.0\.0\.1".*the name pin refused it \(the CA is right\): the certificate's DNS SAN attacker\.example/,
      );
    expect(out).not.toContain(pix.endToEndId);
  });

  it('a Pix to a key outside keys: answered 200, not run, and a warning names the key seen and the configured keys (was silent)', async () => {
    const pix = apiPixPix({ key: 'outra@example.com' });
    const answer = await call(psp, apiPixBody([pix]));
    expect(answer.status).toBe(200);
    await expect
      .poll(() => err)
      .toMatch(/"reason":"unknown_key".*the Pix is to key outra@example\.com, not one of keys \(loja@example\.com\)/);
    expect(out).not.toContain(pix.endToEndId);
  });
});

describe("the emulator → the guide's mTLS receiver on Node (issue 37)", () => {
  it("the emulator, as the PSP, delivers over mTLS to the guide's receiver: the handler runs, the delivery is answered 200", async () => {
    // The emulator's own certificates stand for the PSP's and the merchant's; its client certificate is
    // CN=pixhook-emulator-client (no SAN), the name pinned in place of the guide's PSP name.
    const emulator = await startApiPix({ pixKey: 'loja@example.com' });
    const port = await freePort();
    let code = markedBlock(guide, 'api-pix: mtls receiver');
    code = replaced(code, '/etc/pixhook/psp-ca.pem', emulator.certificates.ca);
    code = replaced(code, '/etc/pixhook/server.pem', emulator.certificates.serverCert);
    code = replaced(code, '/etc/pixhook/server-key.pem', emulator.certificates.serverKey);
    code = replaced(code, "names: ['webhook.psp.example']", "names: ['pixhook-emulator-client']");
    code = replaced(code, 'server.listen(8443);', `server.listen(${String(port)}, '127.0.0.1');`);
    const dir = project();
    writeFileSync(join(dir, 'server.js'), code);
    const child = spawn(process.execPath, ['server.js'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const client = clientFor(emulator);
    try {
      await listening(port, child);
      await client.configureWebhook(`https://127.0.0.1:${String(port)}/webhooks/bank`);
      await client.createCharge({ txid: txid(37), amountInCents: 2590 });
      const paid = emulator.pay(txid(37));
      await emulator.idle();
      expect(emulator.deliveries()).toMatchObject([{ state: 'delivered', attempts: [{ status: 200 }] }]);
      expect(emulator.deliveries()[0]!.url).toMatch(/\/webhooks\/bank\/pix$/);
      await expect.poll(() => out).toContain(`received ${String(paid['endToEndId'])} ${txid(37)} 2590`);
    } finally {
      client.close();
      await emulator.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

async function listening(port: number, child: ChildProcess): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    if (child.exitCode !== null) throw new Error(`the guide's server exited with ${String(child.exitCode)}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the guide's server did not listen");
}
