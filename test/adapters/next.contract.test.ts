import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { createAppRouteHandler, createPagesApiHandler } from '../../adapters/next/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { runContractSuite } from '../contract/run-contract-suite.js';
import { nodeHandlerTarget } from './listen-target.js';

// What Next's `after` / a platform's `waitUntil` does on a long-lived server: nothing needed but holding on.
const kept: Promise<unknown>[] = [];
const keepAlive = (promise: Promise<unknown>) => void kept.push(promise);

// The App Router handler gets real `Request` objects built from real HTTP requests, as Next does.
runContractSuite('Next.js App Router handler over HTTP', async (receiver) => {
  const handler = createAppRouteHandler(receiver, { after: keepAlive });
  const server = createServer((req, res) => {
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
      ...(req.method !== 'GET' && req.method !== 'HEAD' && { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }),
    } as RequestInit);
    void handler(request).then(async (response) => {
      res.statusCode = response.status;
      response.headers.forEach((value, name) => res.setHeader(name, value));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  return serverTarget(server, '/webhooks/pix');
});

// The Pages Router handler is a Node (req, res) handler, as Next calls it with `bodyParser: false`.
runContractSuite('Next.js Pages Router handler over HTTP', async (receiver) =>
  nodeHandlerTarget(createPagesApiHandler(receiver, { waitUntil: keepAlive })),
);
