// mTLS over real TLS (Node terminating it) on node:http, Express and Fastify, with certificates made per run.
import express from 'express';
import Fastify from 'fastify';
import { request as httpsRequest } from 'node:https';
import { once } from 'node:events';
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { pixhookFastify } from '../../adapters/fastify/index.js';
import { createMtlsServer, createNodeHandler } from '../../adapters/node/index.js';
import { createFetchHandler } from '../../adapters/web/index.js';
import { createApiPixReceiver, type ApiPixAuth } from '../../src/api-pix/index.js';
import { PixhookConfigError, type Receiver } from '../../src/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from '../helpers/test-certificates.js';

let pspCa: TestCa;
let otherCa: TestCa;
let serverCa: TestCa;
let server: TestLeaf;
let psp: TestLeaf;
let stranger: TestLeaf;
let impostor: TestLeaf;

beforeAll(async () => {
  [pspCa, otherCa, serverCa] = await Promise.all([makeCa('PSP Root CA'), makeCa('Other CA'), makeCa('Merchant CA')]);
  server = await makeLeaf(serverCa, 'localhost', 'server');
  psp = await makeLeaf(pspCa, 'webhook.psp.example', 'client');
  stranger = await makeLeaf(otherCa, 'webhook.psp.example', 'client');
  impostor = await makeLeaf(pspCa, 'someone-else.example', 'client');
});

/** A served receiver: its port, and the TLS server itself, whose `tlsClientError` says a handshake was refused. */
interface Served {
  port: number;
  tls: Server;
  close: () => Promise<void>;
}
type Serve = (receiver: Receiver) => Promise<Served>;

async function listen(tls: Server): Promise<Served> {
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  return {
    port: (tls.address() as AddressInfo).port,
    tls,
    close: () =>
      new Promise<void>((resolve) => {
        tls.close(() => resolve());
        tls.closeAllConnections();
      }),
  };
}

/**
 * The TLS server's refusal of the next handshake (its error code, and the chain's verdict), and how many
 * connections it did secure: a refused one never becomes a secure connection, so no HTTP byte is read.
 */
function watchHandshakes(tls: Server): { refused: Promise<{ code?: string; verdict: unknown }>; secured: () => number } {
  let secured = 0;
  tls.on('secureConnection', () => secured++);
  const refused = once(tls, 'tlsClientError').then(([error, socket]) => ({
    code: (error as NodeJS.ErrnoException).code,
    verdict: (socket as TLSSocket).authorizationError,
  }));
  return { refused, secured: () => secured };
}

const tlsOptions = () => ({ cert: server.cert, key: server.key, ca: pspCa.cert });

const frameworks: [string, Serve][] = [
  ['node:http', (receiver) => listen(createMtlsServer(tlsOptions(), createNodeHandler(receiver)))],
  [
    'Express 5',
    (receiver) => {
      const app = express();
      app.use('/webhooks/bank', createExpressMiddleware(receiver));
      return listen(createMtlsServer(tlsOptions(), app));
    },
  ],
  [
    'Fastify 5',
    async (receiver) => {
      let made: Server | undefined;
      const app = Fastify({
        serverFactory: (handler) => {
          made = createMtlsServer(tlsOptions(), handler);
          return made;
        },
      });
      await app.register(pixhookFastify, { receiver, path: '/webhooks/bank' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: (made!.address() as AddressInfo).port, tls: made!, close: () => app.close() };
    },
  ],
];

function send(port: number, client: TestLeaf | undefined, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/webhooks/bank/pix',
        method: 'POST',
        servername: 'localhost',
        ca: serverCa.cert,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        ...(client !== undefined && { cert: client.cert, key: client.key }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.each(frameworks)('API Pix mTLS on %s', (_name, serve) => {
  const receiverFor = (auth: ApiPixAuth) => {
    const handled: string[] = [];
    const receiver = createApiPixReceiver({ auth }).on('pix_received', (event) => void handled.push(event.pix.endToEndId));
    return { receiver, handled };
  };

  it('handles a call from the PSP certificate', async () => {
    const { receiver, handled } = receiverFor({ mtls: { ca: pspCa.cert, names: ['webhook.psp.example'] } });
    const running = await serve(receiver);
    try {
      const pix = apiPixPix();
      const answer = await send(running.port, psp, apiPixBody([pix]));
      expect(answer.status).toBe(200);
      expect(handled).toEqual([pix.endToEndId]);
    } finally {
      await running.close();
    }
  });

  it('refuses a client without a certificate in the handshake', async () => {
    const { receiver, handled } = receiverFor({ mtls: { ca: pspCa.cert } });
    const running = await serve(receiver);
    try {
      const handshakes = watchHandshakes(running.tls);
      await expect(send(running.port, undefined, apiPixBody([apiPixPix()]))).rejects.toMatchObject({
        code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
      });
      expect((await handshakes.refused).code).toBe('ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE');
      expect(handshakes.secured()).toBe(0);
      expect(handled).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('refuses a certificate from another CA in the handshake', async () => {
    const { receiver, handled } = receiverFor({ mtls: { ca: pspCa.cert } });
    const running = await serve(receiver);
    try {
      const handshakes = watchHandshakes(running.tls);
      await expect(send(running.port, stranger, apiPixBody([apiPixPix()]))).rejects.toThrow();
      // Node verifies the chain at the end of the handshake and destroys the socket before it is secure.
      expect((await handshakes.refused).verdict).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      expect(handshakes.secured()).toBe(0);
      expect(handled).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('refuses a certificate whose pinned name does not match: 401 client_certificate_rejected', async () => {
    const { receiver, handled } = receiverFor({ mtls: { ca: pspCa.cert, names: ['webhook.psp.example'] } });
    const running = await serve(receiver);
    try {
      const answer = await send(running.port, impostor, apiPixBody([apiPixPix()]));
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'client_certificate_rejected' });
      expect(handled).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('refuses a certificate whose pinned fingerprint does not match', async () => {
    const { receiver, handled } = receiverFor({ mtls: { ca: pspCa.cert, fingerprints: [impostor.fingerprint256] } });
    const running = await serve(receiver);
    try {
      expect((await send(running.port, psp, apiPixBody([apiPixPix()]))).status).toBe(401);
      expect((await send(running.port, impostor, apiPixBody([apiPixPix()]))).status).toBe(200);
      expect(handled).toHaveLength(1);
    } finally {
      await running.close();
    }
  });
});

describe('API Pix mTLS where the runtime has no socket', () => {
  it('is refused when the fetch handler is made, pointing at proxy', () => {
    const receiver = createApiPixReceiver({ auth: { mtls: { ca: pspCa.cert } } });
    expect(() => createFetchHandler(receiver)).toThrow(PixhookConfigError);
    expect(() => createFetchHandler(receiver)).toThrow(/proxy/);
  });

  it('a plain-HTTP request to an mtls receiver is 401 client_certificate_required', async () => {
    const receiver = createApiPixReceiver({ auth: { mtls: { ca: pspCa.cert } } });
    const result = await receiver.receive({ method: 'POST', headers: {}, body: apiPixBody([apiPixPix()]), peer: { address: '127.0.0.1' } });
    expect([result.status, result.reason]).toEqual([401, 'client_certificate_required']);
  });
});

afterAll(() => undefined);
