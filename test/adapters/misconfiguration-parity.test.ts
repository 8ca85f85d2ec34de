import express from 'express';
import Fastify from 'fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { pixhookFastify } from '../../adapters/fastify/index.js';
import { createPagesApiHandler } from '../../adapters/next/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createFetchHandler } from '../../adapters/web/index.js';
import { createReceiver } from '../../src/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 12: a server misconfiguration (a parser got the body first) is answered identically by every
// adapter — status, content type and body shape — with each framework's own fix, never an HTML page.
const secret = 'whsec_misconfigured';
const body = bytesOf({ event: 'transaction_paid', data: { id: 'tx_m', status: 'paid', amountInCents: 100 } });
const headers = { 'content-type': 'application/json', 'x-signature': signBytes(body, secret) };
const receiver = () => createReceiver({ secret }).onAny(() => {});

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function overHttp(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Answer> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pix`, { method: 'POST', headers, body });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  } finally {
    server.close();
  }
}

/** A parser that ran first: the stream is read and `req.body` holds the parsed object. */
function parseFirst(next: (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => unknown) {
  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      req.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      void next(req, res);
    });
  };
}

const targets: Record<string, () => Promise<Answer>> = {
  express: async () => {
    const app = express();
    app.use(express.json());
    app.post('/webhooks/pix', createExpressMiddleware(receiver()));
    return overHttp(app);
  },
  node: () => overHttp(parseFirst(createNodeHandler(receiver()))),
  pages: () => overHttp(parseFirst(createPagesApiHandler(receiver()))),
  fastify: async () => {
    const app = Fastify();
    await app.register(async (scope) => {
      scope.addHook('preValidation', async (request) => {
        request.body = JSON.parse(String(request.body));
      });
      await scope.register(pixhookFastify, { receiver: receiver() });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const res = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks/pix`, {
        method: 'POST',
        headers,
        body,
      });
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    } finally {
      await app.close();
    }
  },
  web: async () => {
    const request = new Request('http://edge.example/webhooks/pix', { method: 'POST', headers, body });
    await request.json();
    const res = await createFetchHandler(receiver())(request);
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  },
};

afterEach(() => vi.restoreAllMocks());

describe('a server misconfiguration, answered the same by every adapter', () => {
  it.each(Object.keys(targets))('%s: 500 JSON body_already_parsed with its own fix, surfaced to its error log', async (name) => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const answer = await targets[name]!();
    expect(answer.status).toBe(500);
    expect(answer.type).toBe('application/json; charset=utf-8');
    const parsed = JSON.parse(answer.body) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(['error', 'message']);
    expect(parsed['error']).toBe('body_already_parsed');
    expect(parsed['message']).toMatch(/^The request body was already (consumed|parsed|read)/);
    // Only Express's answer tells the user to move express.json().
    expect(/express/i.test(String(parsed['message']))).toBe(name === 'express');
    if (name !== 'fastify') expect(logged).toHaveBeenCalledWith(expect.stringContaining('body_already_parsed'));
  });
});
