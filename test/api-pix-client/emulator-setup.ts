import { createServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createApiPixClient, type ApiPixClient, type ApiPixClientOptions } from '../../src/api-pix/index.js';
import { startEmulator, type ApiPixEmulator, type ApiPixEmulatorOptions } from '../../src/emulator/index.js';
import type { PaymentBook } from '../../src/index.js';

export const txid = (n: number | string) => `txid${String(n).padStart(4, '0')}abcdefghijklmnopqrstuvwx`.slice(0, 32);

/** A client of `emulator` over its run's certificates. */
export function clientFor(emulator: ApiPixEmulator, options: Partial<ApiPixClientOptions> = {}): ApiPixClient {
  return createApiPixClient({
    baseUrl: emulator.url,
    clientId: emulator.credentials.clientId,
    clientSecret: emulator.credentials.clientSecret,
    cert: emulator.certificates.clientCert,
    key: emulator.certificates.clientKey,
    ca: emulator.certificates.ca,
    pixKey: emulator.credentials.pixKey,
    retry: { attempts: 3, backoff: { delayMs: 5, factor: 1, maxDelayMs: 50 } },
    ...options,
  });
}

/** The environment `pixhook reconcile --profile api-pix` reads for `emulator`; no Redis or Postgres URL from the shell. */
export function apiPixCliEnv(emulator: ApiPixEmulator): Record<string, string | undefined> {
  return {
    PIXHOOK_API_PIX_URL: emulator.url,
    PIXHOOK_API_PIX_CLIENT_ID: emulator.credentials.clientId,
    PIXHOOK_API_PIX_CLIENT_SECRET: emulator.credentials.clientSecret,
    PIXHOOK_API_PIX_CLIENT_CERT: emulator.certificates.clientCert,
    PIXHOOK_API_PIX_CLIENT_KEY: emulator.certificates.clientKey,
    PIXHOOK_API_PIX_CA: emulator.certificates.ca,
    PIXHOOK_API_PIX_KEY: emulator.credentials.pixKey,
    PIXHOOK_REDIS_URL: undefined,
    PIXHOOK_POSTGRES_URL: undefined,
  };
}

/** One charge per txid, each of `amountInCents`, which `book` expects at that amount. */
export async function expectedCharges(emulator: ApiPixEmulator, book: PaymentBook, ids: string[], amountInCents: number): Promise<void> {
  const client = clientFor(emulator);
  try {
    for (const id of ids) {
      await client.createCharge({ txid: id, amountInCents });
      await book.expect({ id, amountInCents });
    }
  } finally {
    client.close();
  }
}

export async function startApiPix(options: Omit<ApiPixEmulatorOptions, 'profile'> = {}): Promise<ApiPixEmulator> {
  return startEmulator({
    profile: 'api-pix',
    retry: { attempts: 3, backoff: { delayMs: 10, factor: 1 } },
    groupWindowMs: 20,
    refundSettleMs: 5,
    ...options,
  });
}

export interface ReceivedCall {
  path: string;
  body: unknown;
  authorized: boolean;
  clientName: string | undefined;
}

/** A merchant-side https server with the run's server certificate that asks for (and checks) the PSP's client certificate. */
export async function startMtlsReceiver(
  emulator: ApiPixEmulator,
  answer: (call: ReceivedCall) => number = () => 200,
): Promise<{ url: string; calls: ReceivedCall[]; close(): Promise<void> }> {
  const calls: ReceivedCall[] = [];
  const server: Server = createServer(
    {
      cert: readFileSync(emulator.certificates.serverCert),
      key: readFileSync(emulator.certificates.serverKey),
      ca: readFileSync(emulator.certificates.ca),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const socket = request.socket as import('node:tls').TLSSocket;
        const call: ReceivedCall = {
          path: request.url ?? '',
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          authorized: socket.authorized,
          clientName: socket.getPeerCertificate().subject?.CN as string | undefined,
        };
        calls.push(call);
        response.writeHead(answer(call));
        response.end();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/webhook`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
