// `pixhook listen --profile api-pix`: Node terminating mTLS with --tls-cert/--tls-key/--tls-ca, or a URL secret.
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { startCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from '../helpers/test-certificates.js';

const tempDir = useTempDirs('pixhook-apipix-cli-');
let serverCa: TestCa;
let pspCa: TestCa;
let server: TestLeaf;
let psp: TestLeaf;

beforeAll(async () => {
  [serverCa, pspCa] = await Promise.all([makeCa('Merchant CA'), makeCa('PSP Root CA')]);
  server = await makeLeaf(serverCa, 'localhost', 'server');
  psp = await makeLeaf(pspCa, 'webhook.psp.example', 'client');
}, 30_000);

function post(url: string, body: string, client?: TestLeaf): Promise<number> {
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const options = {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json' },
      ...(secure && { ca: serverCa.cert, servername: 'localhost', ...(client !== undefined && { cert: client.cert, key: client.key }) }),
    };
    const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('pixhook listen --profile api-pix', () => {
  it('terminates mTLS: the PSP certificate is handled and printed, a client without one is refused', async () => {
    const dir = tempDir();
    const files = { cert: join(dir, 'server.pem'), key: join(dir, 'server-key.pem'), ca: join(dir, 'psp-ca.pem') };
    writeFileSync(files.cert, server.cert);
    writeFileSync(files.key, server.key);
    writeFileSync(files.ca, pspCa.cert);
    const args = ['listen', '--profile', 'api-pix', '--port', '0', '--path', '/webhooks/bank'];
    const cli = startCli([...args, '--tls-cert', files.cert, '--tls-key', files.key, '--tls-ca', files.ca]);
    try {
      const [, url] = await cli.waitFor(/listening on (https:\/\/\S+)/, 20_000);
      const pix = apiPixPix();
      expect(await post(`${url!}/pix`, apiPixBody([pix]), psp)).toBe(200);
      await cli.waitFor(new RegExp(pix.endToEndId));
      expect(cli.stdout()).toContain('"event":"pix_received"');
      await expect(post(`${url!}/pix`, apiPixBody([apiPixPix()]))).rejects.toThrow();
    } finally {
      await cli.stop();
    }
  });

  it('without TLS flags checks the secret in the URL, which never reaches the output', async () => {
    const secret = 'cli-url-secret-0123456789abcdef';
    const cli = startCli(['listen', '--profile', 'api-pix', '--port', '0', '--path', '/webhooks/bank'], { PIXHOOK_SECRET: secret });
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/, 20_000);
      expect(await post(`${url!}/pix/?secret=${secret}`, apiPixBody([apiPixPix()]))).toBe(200);
      expect(await post(`${url!}/pix?secret=wrong-secret-0123456789`, apiPixBody([apiPixPix()]))).toBe(401);
      await cli.waitFor(/url_secret_mismatch/);
      expect(cli.stdout() + cli.stderr()).not.toContain(secret);
    } finally {
      await cli.stop();
    }
  });

  it('refuses TLS flags without the profile', async () => {
    const cli = startCli(['listen', '--port', '0', '--tls-ca', '/nonexistent'], { PIXHOOK_SECRET: 'whsec_x' });
    expect(await cli.exited).not.toBe(0);
    expect(cli.stderr()).toContain('--profile api-pix only');
  });
});
