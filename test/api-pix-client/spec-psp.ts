import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createApiPixClient, type ApiPixClient } from '../../src/api-pix/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { startApiPix } from './emulator-setup.js';
import { problems } from './spec-examples.js';

/** A request the spec PSP received: method, path, query and JSON body. */
export interface SpecRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The scheme of the Authorization header (`Basic`, `Bearer`), never its value. */
  auth: string | undefined;
  body: unknown;
}

/**
 * A PSP that answers with the spec's own examples, over mTLS with an emulator run's certificates: `answers` maps
 * `METHOD /path` to the answer (default `NaoEncontradoExample1`), and every request is kept in `requests`.
 */
export async function startSpecPsp() {
  const emulator: ApiPixEmulator = await startApiPix();
  const answers = new Map<string, { status: number; body?: unknown }>();
  const requests: SpecRequest[] = [];
  const server = createServer(
    {
      cert: readFileSync(emulator.certificates.serverCert),
      key: readFileSync(emulator.certificates.serverKey),
      ca: readFileSync(emulator.certificates.ca),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'https://psp');
        const text = Buffer.concat(chunks).toString('utf8');
        const json = (() => {
          try {
            return text === '' ? undefined : (JSON.parse(text) as unknown);
          } catch {
            return text;
          }
        })();
        const auth = request.headers.authorization?.split(' ')[0];
        requests.push({ method: request.method ?? '', path: url.pathname, query: url.searchParams, auth, body: json });
        const answer =
          url.pathname === '/oauth/token'
            ? { status: 200, body: { access_token: 'token', token_type: 'Bearer', expires_in: 3600 } }
            : (answers.get(`${request.method} ${url.pathname}`) ?? { status: 404, body: problems.NaoEncontradoExample1 });
        if (answer.body === undefined) {
          response.writeHead(answer.status);
          response.end();
          return;
        }
        response.writeHead(answer.status, { 'content-type': answer.status >= 400 ? 'application/problem+json' : 'application/json' });
        response.end(JSON.stringify(answer.body));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const clients: ApiPixClient[] = [];
  /** A client of this PSP that has no token yet. */
  const newClient = (): ApiPixClient => {
    const made = createApiPixClient({
      baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      clientId: 'id',
      clientSecret: 'secret',
      cert: emulator.certificates.clientCert,
      key: emulator.certificates.clientKey,
      ca: emulator.certificates.ca,
      pixKey: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
      retry: { attempts: 1 },
    });
    clients.push(made);
    return made;
  };
  return {
    client: newClient(),
    newClient,
    answers,
    requests,
    async close() {
      for (const made of clients) made.close();
      await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
      await emulator.close();
    },
  };
}
