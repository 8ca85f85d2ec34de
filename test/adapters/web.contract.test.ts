import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { createFetchHandler } from '../../adapters/web/index.js';
import { runContractSuite } from '../contract/run-contract-suite.js';
import { urlTarget } from './listen-target.js';

// The fetch handler inside a real Hono app served by @hono/node-server, as a Node merchant would run it.
runContractSuite('fetch handler in Hono over HTTP', async (receiver) => {
  const handler = createFetchHandler(receiver);
  const app = new Hono();
  app.all('/webhooks/pix', (c) => handler(c.req.raw));
  let server!: ReturnType<typeof serve>;
  const { port } = await new Promise<AddressInfo>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
  });
  return urlTarget(`http://127.0.0.1:${port}/webhooks/pix`, async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });
});
