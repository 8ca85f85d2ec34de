// One process per framework, serving on loopback ports: its bare route (read the raw body, answer 200),
// the hand-written verifying route (the same plus the limit's work: HMAC + timingSafeEqual + JSON.parse),
// and the pixhook adapter; on node:http also @octokit/webhooks' createNodeMiddleware (same bytes, same
// `sha256=` HMAC). The load generator (another process) alternates between them. Prints {"bare":port,"limit":port,"pixhook":port,…}.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { createReceiver, eventKey } from 'pixhook';
import { secret } from './lib/payloads.js';

const framework = process.argv[2];
const path = '/webhooks/pix';
const okBody = '{"ok":true}';
const okHeaders = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

// Same bytes on every request: a counter in the key makes every delivery claim, like a fresh event.
let n = 0;
const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n++}` }).onAny(() => {});

/** The physical minimum a verifying receiver must do per delivery; true when the signature matches. */
function limitWork(bytes, header) {
  const given = Buffer.from(String(header).slice(7), 'hex');
  const expected = createHmac('sha256', secret).update(bytes).digest();
  if (given.length !== expected.length || !timingSafeEqual(expected, given)) return false;
  JSON.parse(bytes.toString('utf8'));
  return true;
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

const frameworks = {
  async express() {
    const { default: express } = await import('express');
    const { createExpressMiddleware } = await import('pixhook/express');
    const bare = express();
    bare.post(path, express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
      res.status(200).set(okHeaders).send(okBody);
    });
    const limit = express();
    limit.post(path, express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
      res
        .status(limitWork(req.body, req.headers['x-signature']) ? 200 : 401)
        .set(okHeaders)
        .send(okBody);
    });
    const app = express();
    app.post(path, createExpressMiddleware(receiver));
    return { bare: await listen(createServer(bare)), limit: await listen(createServer(limit)), pixhook: await listen(createServer(app)) };
  },
  async fastify() {
    const { default: Fastify } = await import('fastify');
    const { pixhookFastify } = await import('pixhook/fastify');
    const bare = Fastify();
    bare.removeAllContentTypeParsers();
    bare.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    bare.post(path, async (_request, reply) => reply.code(200).headers(okHeaders).send(okBody));
    const limit = Fastify();
    limit.removeAllContentTypeParsers();
    limit.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    limit.post(path, async (request, reply) =>
      reply
        .code(limitWork(request.body, request.headers['x-signature']) ? 200 : 401)
        .headers(okHeaders)
        .send(okBody),
    );
    const app = Fastify();
    await app.register(pixhookFastify, { receiver, path });
    for (const server of [bare, limit, app]) await server.listen({ port: 0, host: '127.0.0.1' });
    return { bare: bare.server.address().port, limit: limit.server.address().port, pixhook: app.server.address().port };
  },
  async node() {
    const { createNodeHandler } = await import('pixhook/node');
    const { Webhooks, createNodeMiddleware } = await import('@octokit/webhooks');
    // octokit: verifies x-hub-signature-256 over the same bytes, parses, emits to a registered handler.
    const webhooks = new Webhooks({ secret });
    // Equivalent trivial work to pixhook's no-op onAny: the handler runs, counts, returns.
    const seen = { count: 0 };
    webhooks.on('push', () => {
      seen.count++;
    });
    const octokit = createNodeMiddleware(webhooks, { path });
    const route = (work) =>
      createServer((req, res) => {
        const chunks = [];
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => {
          const ok = work(Buffer.concat(chunks), req.headers['x-signature']);
          res.writeHead(ok ? 200 : 401, okHeaders).end(okBody);
        });
      });
    return {
      bare: await listen(route(() => true)),
      limit: await listen(route(limitWork)),
      pixhook: await listen(createServer(createNodeHandler(receiver))),
      octokit: await listen(createServer((req, res) => void octokit(req, res))),
    };
  },
  // The fetch handler on Node: Hono on @hono/node-server for both, the route reading the raw bytes.
  async web() {
    const { Hono } = await import('hono');
    const { serve } = await import('@hono/node-server');
    const { createFetchHandler } = await import('pixhook/web');
    const handler = createFetchHandler(receiver);
    const bare = new Hono().post(path, async (c) => {
      await c.req.raw.arrayBuffer();
      return new Response(okBody, { status: 200, headers: okHeaders });
    });
    const limit = new Hono().post(path, async (c) => {
      const bytes = Buffer.from(await c.req.raw.arrayBuffer());
      const ok = limitWork(bytes, c.req.raw.headers.get('x-signature'));
      return new Response(okBody, { status: ok ? 200 : 401, headers: okHeaders });
    });
    const app = new Hono().post(path, (c) => handler(c.req.raw));
    const start = (fetch) =>
      new Promise((resolve) => {
        const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
        void server;
      });
    return { bare: await start(bare.fetch), limit: await start(limit.fetch), pixhook: await start(app.fetch) };
  },
};

const ports = await frameworks[framework]();
console.log(JSON.stringify(ports));
// The parent ends this process when it is done; stdin closing means the parent went away.
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
