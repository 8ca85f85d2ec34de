// A declared length over the limit is answered 413 at once, before a byte of the body is read: the client
// here sends the head alone and waits, so an adapter that waited for (or drained) the body first would
// never answer. The same node:http bridge serves the gateway's, a PSP's and API Pix's receivers.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { createReceiver, type Receiver } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0))
    await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
});

/** Sends only the head of a POST declaring `length` bytes; resolves with what the server answered before any body. */
async function headOnly(receiver: Receiver, path: string, headers: Record<string, string>, length: number): Promise<string> {
  const server = createServer(createNodeHandler(receiver));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const lines = Object.entries({ host: 'localhost', 'content-length': String(length), ...headers }).map(([k, v]) => `${k}: ${v}`);
      socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n') && answer.includes('}')) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', reject);
  });
}

describe('node:http: a declared length over the limit is answered 413 before the body is read', () => {
  const length = 2 * 1024 * 1024;
  it.each([
    ['the gateway', () => createReceiver({ secret: 'whsec_early_413' }), '/webhooks/pix', { 'x-signature': `sha256=${'0'.repeat(64)}` }],
    ['PagBank', () => createPspReceiver({ psp: 'pagbank', token: 'tok' }), '/hooks', { 'x-authenticity-token': '0'.repeat(64) }],
    [
      'API Pix',
      () => createApiPixReceiver({ auth: { urlSecret: { secret: 'a-long-url-secret-for-tests-0123' } } }),
      '/pix?secret=a-long-url-secret-for-tests-0123',
      {},
    ],
  ] as const)('%s: 413 body_too_large with no body byte sent', async (_, make, path, headers) => {
    let runs = 0;
    const receiver = make().onAny(() => void runs++);
    const answer = await headOnly(receiver, path, headers, length);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"error":"body_too_large"');
    expect(runs).toBe(0);
    await receiver.close();
  });
});
