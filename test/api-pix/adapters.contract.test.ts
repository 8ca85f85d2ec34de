// The API Pix profile's contract on the core and on every adapter over real HTTP (urlSecret mode: the one
// every runtime can serve; mtls and proxy have their own tests over real TLS and a real nginx).
import { serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { pixhookFastify } from '../../adapters/fastify/index.js';
import { createAppRouteHandler, createPagesApiHandler } from '../../adapters/next/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createFetchHandler } from '../../adapters/web/index.js';
import { nodeHandlerTarget, urlTarget } from '../adapters/listen-target.js';
import { serverTarget } from '../contract/contract-target.js';
import { runApiPixContract } from './api-pix-contract.js';

runApiPixContract('core receive()', async (receiver) => ({
  async send(request) {
    const result = await receiver.receive({
      method: request.method,
      headers: request.headers,
      body: request.body,
      url: `/webhooks/bank${request.path ?? ''}`,
      peer: { address: '127.0.0.1' },
    });
    return { status: result.status, headers: result.headers, body: result.body };
  },
  close: async () => {},
}));

runApiPixContract('node:http handler', async (receiver) => nodeHandlerTarget(createNodeHandler(receiver), '/webhooks/bank'));

for (const [name, express] of [
  ['Express 4', express4],
  ['Express 5', express5],
] as const) {
  runApiPixContract(`${name} middleware mounted with app.use`, (receiver) => {
    const app = express();
    app.use('/webhooks/bank', createExpressMiddleware(receiver));
    return serverTarget(createServer(app), '/webhooks/bank');
  });
}

runApiPixContract('Fastify 5 plugin', async (receiver) => {
  const app = Fastify();
  await app.register(pixhookFastify, { receiver, path: '/webhooks/bank' });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return urlTarget(`${base}/webhooks/bank`, () => app.close());
});

runApiPixContract('fetch handler in Hono', async (receiver) => {
  const handler = createFetchHandler(receiver);
  const app = new Hono();
  app.all('/webhooks/bank', (c) => handler(c.req.raw));
  app.all('/webhooks/bank/*', (c) => handler(c.req.raw));
  let server!: ReturnType<typeof serve>;
  const { port } = await new Promise<AddressInfo>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
  });
  return urlTarget(`http://127.0.0.1:${port}/webhooks/bank`, async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });
});

const kept: Promise<unknown>[] = [];
const keepAlive = (promise: Promise<unknown>) => void kept.push(promise);

runApiPixContract('Next.js App Router handler', async (receiver) => {
  const handler = createAppRouteHandler(receiver, { after: keepAlive });
  const server = createServer(async (req, res) => {
    // The body is read whole first: a 413 before it was read must not leave a web stream fed after its close.
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([name, value]): [string, string][] =>
        typeof value === 'string' ? [[name, value]] : [],
      ),
      ...(req.method !== 'GET' && req.method !== 'HEAD' && { body: Buffer.concat(chunks) }),
    });
    void handler(request).then(async (response) => {
      res.statusCode = response.status;
      response.headers.forEach((value, name) => res.setHeader(name, value));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  return serverTarget(server, '/webhooks/bank');
});

runApiPixContract('Next.js Pages Router handler', async (receiver) =>
  nodeHandlerTarget(createPagesApiHandler(receiver, { waitUntil: keepAlive }), '/webhooks/bank'),
);
