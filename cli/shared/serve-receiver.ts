import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import type { Receiver } from '../../src/index.js';

interface ServeOptions {
  receiver: Receiver;
  host: string;
  port: number;
  path: string;
}

interface Served {
  url: string;
  framework: 'express' | 'node:http';
  close(): Promise<void>;
}

/** The pixhook adapter on `path`: Express when it is installed, else the node:http adapter itself. */
export async function serveReceiver(options: ServeOptions): Promise<Served> {
  const express = await import('express').then(
    (m) => m.default,
    () => undefined,
  );
  let server: Server;
  if (express) {
    const app = express();
    app.disable('x-powered-by');
    // Every method on the exact path reaches the receiver, so non-POST answers 405 as the contract says.
    app.all(options.path, createExpressMiddleware(options.receiver));
    server = createServer(app);
  } else {
    const handle = createNodeHandler(options.receiver);
    server = createServer((req, res) => {
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== options.path) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
        return;
      }
      handle(req, res);
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}${options.path}`,
    framework: express ? 'express' : 'node:http',
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
