// `proxy` mode behind a real nginx (Debian's package): nginx terminates TLS with `ssl_verify_client on` and
// passes its verdict and the certificate's fingerprint upstream; only nginx's address is believed.
import express from 'express';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { startNginx, type NginxServer } from '../helpers/nginx-server.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from '../helpers/test-certificates.js';

// nginx connects upstream from this loopback address (proxy_bind); a direct caller comes from 127.0.0.1.
const nginxAddress = '127.0.0.2';

let serverCa: TestCa;
let pspCa: TestCa;
let psp: TestLeaf;
let other: TestLeaf;
let app: Server;
let nginx: NginxServer;
const handled: string[] = [];

beforeAll(async () => {
  [serverCa, pspCa] = await Promise.all([makeCa('Merchant CA'), makeCa('PSP Root CA')]);
  const server = await makeLeaf(serverCa, 'localhost', 'server');
  psp = await makeLeaf(pspCa, 'webhook.psp.example', 'client');
  other = await makeLeaf(pspCa, 'other.psp.example', 'client');

  const receiver = createApiPixReceiver({ auth: { proxy: { from: [nginxAddress], fingerprints: [psp.fingerprint1] } } });
  receiver.on('pix_received', (event) => void handled.push(event.pix.endToEndId));
  const web = express();
  web.use('/webhooks/bank', createExpressMiddleware(receiver));
  app = createServer(web);
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const upstream = (app.address() as AddressInfo).port;

  nginx = await startNginx(
    { 'server.crt': server.cert, 'server.key': server.key, 'psp-ca.crt': pspCa.cert },
    (port, dir) => `server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/server.crt;
    ssl_certificate_key ${dir}/server.key;
    ssl_client_certificate ${dir}/psp-ca.crt;
    ssl_verify_client on;
    location / {
      proxy_pass http://127.0.0.1:${upstream};
      proxy_bind ${nginxAddress};
      proxy_set_header X-SSL-Client-Verify $ssl_client_verify;
      proxy_set_header X-SSL-Client-Fingerprint $ssl_client_fingerprint;
    }
  }`,
  );
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
});

function throughNginx(client: TestLeaf | undefined, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: nginx.port,
        path: '/webhooks/bank/pix',
        method: 'POST',
        servername: 'localhost',
        ca: serverCa.cert,
        agent: false,
        headers: { 'content-type': 'application/json' },
        ...(client !== undefined && { cert: client.cert, key: client.key }),
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
}

function direct(headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: (app.address() as AddressInfo).port,
        path: '/webhooks/bank/pix',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
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
}

describe('API Pix proxy mode behind a real nginx', () => {
  it('handles a call whose certificate nginx verified and whose fingerprint is pinned', async () => {
    const pix = apiPixPix();
    const answer = await throughNginx(psp, apiPixBody([pix]));
    expect(answer.status).toBe(200);
    expect(handled).toContain(pix.endToEndId);
  });

  it('nginx itself refuses a client without a certificate', async () => {
    const pix = apiPixPix();
    const answer = await throughNginx(undefined, apiPixBody([pix])).catch(() => ({ status: 0, body: '' }));
    expect(answer.status).not.toBe(200);
    expect(handled).not.toContain(pix.endToEndId);
  });

  it('refuses a certificate of the right CA whose fingerprint is not pinned: 401', async () => {
    const pix = apiPixPix();
    const answer = await throughNginx(other, apiPixBody([pix]));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'client_certificate_rejected' });
    expect(handled).not.toContain(pix.endToEndId);
  });

  it('refuses a request that bypasses nginx with the same headers: 403 address_not_allowed', async () => {
    const pix = apiPixPix();
    const answer = await direct({ 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-fingerprint': psp.fingerprint1 }, apiPixBody([pix]));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'address_not_allowed' });
    expect(handled).not.toContain(pix.endToEndId);
  });
});
