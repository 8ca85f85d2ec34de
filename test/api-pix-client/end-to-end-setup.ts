import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createMtlsServer } from '../../adapters/node/index.js';
import { createApiPixReceiver, type ApiPixAuth, type PixReceivedEvent, type PixRefundUpdatedEvent } from '../../src/api-pix/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { memoryDedupeStore, memoryPaymentBook } from '../../src/index.js';
import { startNginx } from '../helpers/nginx-server.js';
import { proxySecret } from '../api-pix/fixtures.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';

// The emulated PSP ↔ createApiPixReceiver in Express over real mTLS, with Node terminating TLS (`express`) or a
// real nginx in front (`nginx`: it checks the PSP's certificate and passes its verdict to the receiver in proxy
// mode). One setup and one set of cases for both, so the two fronts are held to the same behaviour.
type Front = 'express' | 'nginx';

const pem = (path: string) => readFileSync(path, 'utf8');

/** An answer of the emulator's `/_emulator` controls (or of the app). */
interface Answer {
  status: number;
  body: unknown;
}

function collect(resolve: (answer: Answer) => void) {
  return (res: import('node:http').IncomingMessage) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : (JSON.parse(text) as unknown) });
    });
  };
}

/** Calls an `/_emulator` control over mTLS with the run's client certificate, as a test harness or the sandbox does. */
function control(emulator: ApiPixEmulator, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${emulator.url}${path}`,
      {
        method,
        agent: false,
        cert: pem(emulator.certificates.clientCert),
        key: pem(emulator.certificates.clientKey),
        ca: pem(emulator.certificates.ca),
        headers: { 'content-type': 'application/json' },
      },
      collect(resolve),
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function listen(server: Server): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The SHA-1 of a certificate as nginx's `$ssl_client_fingerprint` writes it (the receiver ignores case and `:`). */
const sha1Of = (certPem: string) => new X509Certificate(certPem).fingerprint;

let running: { emulator: ApiPixEmulator; closers: Array<() => Promise<void>> } | undefined;

/** Stops what the last `startEndToEnd` started; registered by `describeEndToEnd`. */
async function stopEndToEnd(): Promise<void> {
  if (!running) return;
  const { emulator, closers } = running;
  running = undefined;
  for (const close of closers.reverse()) await close();
  await emulator.close();
}

/**
 * Starts the emulator, a receiver in Express behind `front`, and a client of the emulator whose webhook points at
 * the front door. A large grouping window: every Pix paid before `emulator.idle()` goes in one call.
 */
export async function startEndToEnd(front: Front) {
  const emulator = await startApiPix({ groupWindowMs: 60_000 });
  const closers: Array<() => Promise<void>> = [];
  running = { emulator, closers };
  const book = memoryPaymentBook();
  const received: PixReceivedEvent[] = [];
  const refunds: PixRefundUpdatedEvent[] = [];
  const auth: ApiPixAuth =
    front === 'express'
      ? { mtls: { ca: pem(emulator.certificates.ca), names: ['pixhook-emulator-client'] } }
      : { proxy: { from: ['127.0.0.1/32'], secret: proxySecret, fingerprints: [sha1Of(pem(emulator.certificates.clientCert))] } };
  const receiver = createApiPixReceiver({ auth, keys: [emulator.credentials.pixKey], store: memoryDedupeStore(), book })
    .on('pix_received', (event) => void received.push(event))
    .on('pix_refund_updated', (event) => void refunds.push(event));
  const app: Express = express();
  app.use('/webhooks/bank', createExpressMiddleware(receiver));

  let webhookUrl: string;
  let appPort: number;
  if (front === 'express') {
    const tls = {
      cert: pem(emulator.certificates.serverCert),
      key: pem(emulator.certificates.serverKey),
      ca: pem(emulator.certificates.ca),
    };
    const server = await listen(createMtlsServer(tls, app));
    closers.push(server.close);
    appPort = server.port;
    webhookUrl = `https://127.0.0.1:${server.port}/webhooks/bank`;
  } else {
    // Express on plain HTTP; nginx terminates TLS with the run's server certificate, requires a client
    // certificate from the emulator's CA, and passes its verdict and fingerprint upstream.
    const server = await listen(createServer(app));
    closers.push(server.close);
    appPort = server.port;
    const nginx = await startNginx(
      {
        'server.crt': pem(emulator.certificates.serverCert),
        'server.key': pem(emulator.certificates.serverKey),
        'psp-ca.crt': pem(emulator.certificates.ca),
      },
      (port, dir) => `server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/server.crt;
    ssl_certificate_key ${dir}/server.key;
    ssl_client_certificate ${dir}/psp-ca.crt;
    ssl_verify_client on;
    location / {
      proxy_pass http://127.0.0.1:${server.port};
      proxy_set_header X-SSL-Client-Verify $ssl_client_verify;
      proxy_set_header X-SSL-Client-Fingerprint $ssl_client_fingerprint;
      proxy_set_header X-Pixhook-Proxy-Secret "${proxySecret}";
    }
  }`,
    );
    closers.push(() => nginx.stop());
    webhookUrl = `https://127.0.0.1:${nginx.port}/webhooks/bank`;
  }

  const client = clientFor(emulator, { book });
  closers.push(async () => client.close());
  await client.configureWebhook(webhookUrl);

  /** A POST straight to the app on plain HTTP from `localAddress`, bypassing whatever is in front. */
  const direct = (headers: Record<string, string>, body: string, localAddress = '127.0.0.1'): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: appPort,
          localAddress,
          path: '/webhooks/bank/pix',
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', ...headers },
        },
        collect(resolve),
      );
      req.on('error', reject);
      req.end(body);
    });

  return {
    emulator,
    client,
    book,
    received,
    refunds,
    direct,
    clientFingerprint: sha1Of(pem(emulator.certificates.clientCert)),
    pay: (id: string, payment: { amountInCents?: number } = {}) => control(emulator, 'POST', `/_emulator/cob/${id}/pay`, payment),
  };
}

type Delivery = { state: string; endToEndIds: string[]; attempts: Array<{ status: number }> };
const deliveriesOf = async (emulator: ApiPixEmulator) =>
  ((await control(emulator, 'GET', '/_emulator/deliveries')).body as { data: Delivery[] }).data;

/** The Done-when cases of the API Pix end to end, registered for one front. */
export function describeEndToEnd(title: string, front: Front, more?: () => void): void {
  describe(title, () => {
    afterEach(stopEndToEnd);

    it('create a cob, pay it: the handler runs once, with the amount in cents', async () => {
      const { emulator, client, received, pay } = await startEndToEnd(front);
      await client.createCharge({ txid: txid(1), amountInCents: 11000 });
      const paid = await pay(txid(1));
      expect(paid.status).toBe(200);
      const endToEndId = (paid.body as { endToEndId: string }).endToEndId;
      await emulator.idle();
      expect(received).toHaveLength(1);
      expect(received[0]!.pix).toMatchObject({ endToEndId, txid: txid(1), amountInCents: 11000 });
      expect(await deliveriesOf(emulator)).toMatchObject([{ state: 'delivered', endToEndIds: [endToEndId], attempts: [{ status: 200 }] }]);
    });

    it('paid with another amount: held by the book, the handler does not run', async () => {
      const { emulator, client, book, received, pay } = await startEndToEnd(front);
      await client.createCharge({ txid: txid(2), amountInCents: 5000 });
      expect((await pay(txid(2), { amountInCents: 100 })).status).toBe(200);
      await emulator.idle();
      expect(received).toHaveLength(0);
      const held = await book.held();
      expect(held).toHaveLength(1);
      expect(held[0]).toMatchObject({ resourceId: txid(2) });
      // Held is handled: the PSP is answered 2xx and does not resend.
      expect(await deliveriesOf(emulator)).toMatchObject([{ state: 'delivered', attempts: [{ status: 200 }] }]);
    });

    it('a refund through the client: pix_refund_updated with status returned', async () => {
      const { emulator, client, received, refunds, pay } = await startEndToEnd(front);
      await client.createCharge({ txid: txid(3), amountInCents: 3000 });
      const endToEndId = ((await pay(txid(3))).body as { endToEndId: string }).endToEndId;
      await emulator.idle();
      const asked = await client.refund(endToEndId, 'refund3', 3000);
      expect(asked.status).toBe('processing');
      // The PSP settles it on its own a moment later; wait for the settled state, then for its notification.
      while ((await client.getRefund(endToEndId, 'refund3')).status !== 'returned') await new Promise((r) => setTimeout(r, 5));
      await emulator.idle();
      expect(received).toHaveLength(1);
      expect(refunds.map((event) => event.refund.status)).toEqual(['returned']);
      expect(refunds[0]!.refund).toMatchObject({ id: 'refund3', amountInCents: 3000 });
    });

    it('a grouped call of 20 Pix: one delivery in the log, each Pix handled once', async () => {
      const { emulator, client, received, pay } = await startEndToEnd(front);
      for (let i = 0; i < 20; i++) await client.createCharge({ txid: txid(100 + i), amountInCents: 200 + i });
      const paid = await Promise.all(Array.from({ length: 20 }, (_, i) => pay(txid(100 + i))));
      const ids = paid.map((answer) => (answer.body as { endToEndId: string }).endToEndId);
      await emulator.idle();
      const log = await deliveriesOf(emulator);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ state: 'delivered', attempts: [{ status: 200 }] });
      expect([...log[0]!.endToEndIds].sort()).toEqual([...ids].sort());
      expect(received.map((event) => event.pix.amountInCents).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 200 + i));
      expect(received.map((event) => event.pix.endToEndId).sort()).toEqual([...ids].sort());
    });

    more?.();
  });
}
