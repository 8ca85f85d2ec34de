import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createPagesApiHandler } from '../../adapters/next/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createReceiver, type Receiver } from '../../src/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Next's Pages response and on-headers (morgan, compression, express-session) wrap `res.writeHead` and
// read an array of headers as [name, value] pairs. A flat [name, value, …] list came out as `c: o`,
// `a: l`, and no Allow, Content-Type or Cache-Control. Every Node adapter must survive such a wrapper.
function wrapWriteHeadLikeNext(res: ServerResponse): void {
  const original = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  res.writeHead = ((status: number, headers?: OutgoingHttpHeaders | unknown[]) => {
    if (Array.isArray(headers)) {
      for (const pair of headers) res.setHeader(String((pair as string)[0]), String((pair as string)[1]));
      return original(status);
    }
    return original(status, headers);
  }) as ServerResponse['writeHead'];
}

const secret = 'whsec_node_headers';
const bytes = bytesOf(variantAPaid);

const adapters: [string, (receiver: Receiver) => (req: IncomingMessage, res: ServerResponse) => void][] = [
  ['pixhook/node', (receiver) => createNodeHandler(receiver)],
  ['pixhook/next (Pages Router)', (receiver) => (req, res) => void createPagesApiHandler(receiver)(req, res)],
  ['pixhook/express', (receiver) => express().all('/webhooks/pix', createExpressMiddleware(receiver))],
];

describe.each(adapters)('%s behind a writeHead wrapper', (_name, handlerFor) => {
  it.each([
    ['405', { method: 'GET', headers: {} }, 405, 'POST'],
    ['401', { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': 'sha256=00' }, body: bytes }, 401, undefined],
    [
      '200',
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signBytes(bytes, secret) }, body: bytes },
      200,
      undefined,
    ],
  ] as const)('a %s keeps Content-Type, Cache-Control and Allow', async (_label, request, status, allow) => {
    const handler = handlerFor(createReceiver({ secret }).onAny(() => {}));
    const target = await serverTarget(
      createServer((req, res) => {
        wrapWriteHeadLikeNext(res);
        handler(req, res);
      }),
      '/webhooks/pix',
    );
    try {
      const res = await target.send({ ...request, headers: { ...request.headers } });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['allow']).toBe(allow);
      expect(Object.keys(res.headers).filter((name) => name.length === 1)).toEqual([]);
    } finally {
      await target.close();
    }
  });
});
