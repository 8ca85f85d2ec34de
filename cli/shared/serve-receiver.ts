import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createMtlsServer, createNodeHandler } from '../../adapters/node/index.js';
import type { Receiver } from '../../src/index.js';

export interface ServeOptions {
  receiver: Receiver;
  host: string;
  port: number;
  path: string;
  /** The API Pix profile: the path and everything below it (`/pix`, `/rec`, `/cobr`) reach the receiver. */
  subpaths?: boolean;
  /** Node terminates mTLS (PEM texts): an https server that requires a client certificate from `ca`. */
  tls?: { cert: string; key: string; ca: string };
}

export interface Served {
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
    if (options.subpaths === true) app.use(options.path, createExpressMiddleware(options.receiver));
    else app.all(options.path, createExpressMiddleware(options.receiver));
    server = options.tls === undefined ? createServer(app) : createMtlsServer(options.tls, app);
  } else {
    const handle = createNodeHandler(options.receiver);
    const served = (pathname: string) =>
      pathname === options.path || (options.subpaths === true && pathname.startsWith(`${options.path.replace(/\/+$/, '')}/`));
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      if (!served(new URL(req.url ?? '/', 'http://localhost').pathname)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
        return;
      }
      handle(req, res);
    };
    server = options.tls === undefined ? createServer(handler) : createMtlsServer(options.tls, handler);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://${options.host}:${port}${options.path}`,
    framework: express ? 'express' : 'node:http',
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
