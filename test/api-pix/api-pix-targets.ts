// Every adapter that serves the API Pix profile, in each auth mode it can serve: one server per adapter per
// mode, whose requests go to the adapter made for the current case's receiver (a case swaps it in).
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { pixhookFastify } from '../../adapters/fastify/index.js';
import { createAppRouteHandler, createPagesApiHandler } from '../../adapters/next/index.js';
import { createMtlsServer, createNodeHandler } from '../../adapters/node/index.js';
import { createFetchHandler, type FetchHandler } from '../../adapters/web/index.js';
import type { Receiver } from '../../src/index.js';
import type { ContractResponse } from '../contract/contract-target.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from '../helpers/test-certificates.js';
import { sendCall, type CallRequest } from './send-pix-call.js';

export type AuthMode = 'urlSecret' | 'proxy' | 'mtls';

/** Which certificate the client presents over TLS (`mtls` mode only); `plain`: no TLS at all. */
type ClientName = 'psp' | 'stranger' | 'impostor' | 'none' | 'plain';

export interface PixRequest extends CallRequest {
  client?: ClientName;
}

export interface Certificates {
  pspCa: TestCa;
  serverCa: TestCa;
  server: TestLeaf;
  /** Issued by the PSP's CA to the name the receiver pins (`webhook.psp.example`). */
  psp: TestLeaf;
  /** The same name from another CA. */
  stranger: TestLeaf;
  /** The PSP's CA, another name. */
  impostor: TestLeaf;
}

let made: Promise<Certificates> | undefined;

/** Made once per test file, per run, with @peculiar/x509. */
export function certificates(): Promise<Certificates> {
  made ??= (async () => {
    const [pspCa, otherCa, serverCa] = await Promise.all([makeCa('PSP Root CA'), makeCa('Other CA'), makeCa('Merchant CA')]);
    const [server, psp, stranger, impostor] = await Promise.all([
      makeLeaf(serverCa, 'localhost', 'server'),
      makeLeaf(pspCa, 'webhook.psp.example', 'client'),
      makeLeaf(otherCa, 'webhook.psp.example', 'client'),
      makeLeaf(pspCa, 'someone-else.example', 'client'),
    ]);
    return { pspCa, serverCa, server, psp, stranger, impostor };
  })();
  return made;
}

export interface ApiPixTarget {
  /** Serves this receiver from now on (each case has its own). */
  serve(receiver: Receiver): Promise<void>;
  send(request: PixRequest): Promise<ContractResponse>;
  close(): Promise<void>;
}

export interface AdapterUnderTest {
  name: string;
  modes: readonly AuthMode[];
  /** False where the framework hands the handler no peer address. Default true. */
  knowsPeerAddress?: boolean;
  start(mode: AuthMode, certs: Certificates): Promise<ApiPixTarget>;
}

const mount = '/webhooks/bank';
type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Listens on a free loopback port; resolves the base URL of the mount path. */
async function started(server: Server, scheme: 'http' | 'https'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${String((server.address() as AddressInfo).port)}${mount}`;
}

function stopped(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * A plain HTTP server, or Node terminating mTLS with the shipped `createMtlsServer` plus the same app on plain
 * HTTP beside it (a deployment that also listens without TLS: `client: 'plain'` calls go there).
 */
async function listen(mode: AuthMode, certs: Certificates, listener: NodeListener): Promise<Pick<ApiPixTarget, 'send' | 'close'>> {
  const plain = createServer(listener);
  const plainBase = await started(plain, 'http');
  if (mode !== 'mtls') return { send: (request) => sendCall(plainBase + (request.path ?? ''), request), close: () => stopped(plain) };
  const tls = createMtlsServer({ cert: certs.server.cert, key: certs.server.key, ca: certs.pspCa.cert }, listener);
  const tlsBase = await started(tls, 'https');
  return {
    send: (request) => {
      const client = request.client ?? 'psp';
      if (client === 'plain') return sendCall(plainBase + (request.path ?? ''), request);
      const leaf = client === 'none' ? undefined : certs[client];
      return sendCall(tlsBase + (request.path ?? ''), request, {
        ca: certs.serverCa.cert,
        ...(leaf && { cert: leaf.cert, key: leaf.key }),
      });
    },
    close: async () => void (await Promise.all([stopped(tls), stopped(plain)])),
  };
}

/** A server whose listener is the current case's adapter. */
async function swapping<T>(
  mode: AuthMode,
  certs: Certificates,
  make: (receiver: Receiver) => T | Promise<T>,
  dispatch: (current: T, req: IncomingMessage, res: ServerResponse) => void,
  dispose?: (previous: T) => Promise<void>,
): Promise<ApiPixTarget> {
  let current: T | undefined;
  const http = await listen(mode, certs, (req, res) => {
    if (current === undefined) res.writeHead(500).end();
    else dispatch(current, req, res);
  });
  return {
    async serve(receiver) {
      if (current !== undefined) await dispose?.(current);
      current = await make(receiver);
    },
    send: http.send,
    async close() {
      if (current !== undefined) await dispose?.(current);
      await http.close();
    },
  };
}

const core: AdapterUnderTest = {
  name: 'core receive()',
  modes: ['urlSecret', 'proxy'],
  async start() {
    let current: Receiver | undefined;
    return {
      serve: async (receiver) => void (current = receiver),
      async send(request) {
        const result = await current!.receive({
          method: request.method,
          headers: request.headers,
          body: request.body,
          url: `${mount}${request.path ?? ''}`,
          peer: { address: request.from ?? '127.0.0.1' },
        });
        return { status: result.status, headers: result.headers, body: result.body };
      },
      close: async () => {},
    };
  },
};

const node: AdapterUnderTest = {
  name: 'node:http handler',
  modes: ['urlSecret', 'proxy', 'mtls'],
  start: (mode, certs) =>
    swapping(
      mode,
      certs,
      (receiver) => createNodeHandler(receiver),
      (handler, req, res) => handler(req, res),
    ),
};

const expressAdapters = (
  [
    ['Express 4', express4],
    ['Express 5', express5],
  ] as const
).map(([name, express]): AdapterUnderTest => ({
  name: `${name} middleware mounted with app.use`,
  modes: ['urlSecret', 'proxy', 'mtls'],
  async start(mode, certs) {
    let current: ReturnType<typeof createExpressMiddleware> | undefined;
    const app = express();
    app.use(mount, (req, res, next) => current!(req, res, next));
    const target = await swapping(
      mode,
      certs,
      (receiver) => (current = createExpressMiddleware(receiver)),
      (_, req, res) => app(req, res),
    );
    return target;
  },
}));

const fastify: AdapterUnderTest = {
  name: 'Fastify 5 plugin',
  modes: ['urlSecret', 'proxy', 'mtls'],
  // One Fastify app per case (a plugin is registered before the app is ready), all behind the one server:
  // `serverFactory` hands over Fastify's own request listener, as it does for `createMtlsServer`.
  start: (mode, certs) =>
    swapping(
      mode,
      certs,
      async (receiver) => {
        let listener: NodeListener | undefined;
        const app = Fastify({
          serverFactory: (handler) => {
            listener = handler;
            return createServer();
          },
        });
        await app.register(pixhookFastify, { receiver, path: mount });
        await app.ready();
        return { app, listener: listener! };
      },
      ({ listener }, req, res) => listener(req, res),
      ({ app }) => app.close(),
    ),
};

const hono: AdapterUnderTest = {
  name: 'fetch handler in Hono',
  modes: ['urlSecret', 'proxy'],
  async start(mode, certs) {
    let current: FetchHandler | undefined;
    const app = new Hono<{ Bindings: HttpBindings }>();
    // The socket's peer, as @hono/node-server gives it: what `proxy` and `allowFrom` decide on.
    const route = (c: { req: { raw: Request }; env: HttpBindings }) =>
      current!(c.req.raw, {
        ...(c.env.incoming.socket.remoteAddress !== undefined && { remoteAddress: c.env.incoming.socket.remoteAddress }),
      });
    app.all(mount, route);
    app.all(`${mount}/*`, route);
    const listener = getRequestListener(app.fetch);
    return swapping(
      mode,
      certs,
      (receiver) => (current = createFetchHandler(receiver)),
      (_, req, res) => void listener(req, res),
    );
  },
};

const kept: Promise<unknown>[] = [];
const keepAlive = (promise: Promise<unknown>) => void kept.push(promise);

export const nextApp: AdapterUnderTest = {
  name: 'Next.js App Router handler',
  // Without `clientAddress` the App Router knows no peer address: `proxy` and `allowFrom` are refused when made.
  modes: ['urlSecret'],
  knowsPeerAddress: false,
  start: (mode, certs) =>
    swapping(
      mode,
      certs,
      (receiver) => createAppRouteHandler(receiver, { after: keepAlive }),
      (handler, req, res) => void answerWithWebHandler(handler, req, res),
    ),
};

// A host's edge that sets the caller's address in its own header and drops the caller's copy (Vercel's x-real-ip).
const edgeHeader = 'x-edge-client-ip';

const nextAppWithAddress: AdapterUnderTest = {
  name: 'Next.js App Router handler with clientAddress',
  modes: ['urlSecret', 'proxy'],
  start: (mode, certs) =>
    swapping(
      mode,
      certs,
      (receiver) =>
        createAppRouteHandler(receiver, { after: keepAlive, clientAddress: (request) => request.headers.get(edgeHeader) ?? undefined }),
      (handler, req, res) => {
        req.headers[edgeHeader] = req.socket.remoteAddress;
        void answerWithWebHandler(handler, req, res);
      },
    ),
};

/** What Next's server does for a route handler: the Node request as a Web Request, its Response written back. */
async function answerWithWebHandler(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // The body is read whole first: a 413 before it was read must not leave a web stream fed after its close.
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([name, value]): [string, string][] => (typeof value === 'string' ? [[name, value]] : [])),
    ...(req.method !== 'GET' && req.method !== 'HEAD' && { body: Buffer.concat(chunks) }),
  });
  const response = await handler(request);
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(Buffer.from(await response.arrayBuffer()));
}

const nextPages: AdapterUnderTest = {
  name: 'Next.js Pages Router handler',
  modes: ['urlSecret', 'proxy'],
  start: (mode, certs) =>
    swapping(
      mode,
      certs,
      (receiver) => createPagesApiHandler(receiver, { waitUntil: keepAlive }),
      (handler, req, res) => void handler(req, res),
    ),
};

export const adapters: readonly AdapterUnderTest[] = [
  core,
  node,
  ...expressAdapters,
  fastify,
  hono,
  nextApp,
  nextAppWithAddress,
  nextPages,
];
