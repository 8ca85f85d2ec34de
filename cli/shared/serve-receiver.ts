import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createMtlsServer, createNodeHandler } from '../../adapters/node/index.js';
import type { Receiver } from '../../src/index.js';
import { withHealthRoute } from './health-route.js';
import { jsonText } from './json-text.js';

interface ServeOptions {
  receiver: Receiver;
  host: string;
  port: number;
  path: string;
  /** Told of each request to any other path (answered 404), so a sender posting to the wrong path is seen. */
  onUnknownPath?: (method: string, target: string) => void;
  /** The API Pix profile: the path and everything below it (`/pix`, `/rec`, `/cobr`) reach the receiver. */
  subpaths?: boolean;
  /** Node terminates mTLS (PEM texts): an https server that requires a client certificate from `ca`. */
  tls?: { cert: string; key: string; ca: string };
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
    if (options.subpaths === true) app.use(options.path, createExpressMiddleware(options.receiver));
    else app.all(options.path, createExpressMiddleware(options.receiver));
    app.use((req: IncomingMessage, res: ServerResponse) => notFound(options, req, res));
    const routed = withHealthRoute(options.receiver, app);
    server = options.tls === undefined ? createServer(routed) : createMtlsServer(options.tls, routed);
  } else {
    const handle = createNodeHandler(options.receiver);
    const served = (pathname: string | undefined) =>
      pathname === options.path ||
      (options.subpaths === true && pathname !== undefined && pathname.startsWith(`${options.path.replace(/\/+$/, '')}/`));
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      if (!served(pathOf(req.url))) {
        notFound(options, req, res);
        return;
      }
      handle(req, res);
    };
    const routed = withHealthRoute(options.receiver, handler);
    server = options.tls === undefined ? createServer(routed) : createMtlsServer(options.tls, routed);
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

function notFound(options: ServeOptions, req: IncomingMessage, res: ServerResponse): void {
  options.onUnknownPath?.(req.method ?? '?', req.url ?? '');
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
}

function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/** The stderr line for a request to another path: the target JSON-escaped (it is the sender's), and where the receiver is. */
export function unknownPathLine(method: string, target: string, path: string): string {
  return `pixhook: 404 ${jsonText(method.slice(0, 16))} ${jsonText(target.slice(0, 200))}: not the webhook path ${jsonText(path)} (--path sets it)\n`;
}
