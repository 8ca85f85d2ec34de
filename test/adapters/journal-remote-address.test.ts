import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { pixhookFastify } from '../../adapters/fastify/index.js';
import { createPagesApiHandler } from '../../adapters/next/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createFetchHandler } from '../../adapters/web/index.js';
import { createReceiver, memoryJournal, type DeliveryJournal, type Receiver } from '../../src/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { signBytes } from '../helpers/signing.js';

// Issue 23: every adapter gives the journal the sender's address as its framework knows it, over real
// HTTP; X-Forwarded-For is never taken on trust.
const secret = 'whsec_remote_address';
const body = JSON.stringify(variantAPaid);
const headers = { 'content-type': 'application/json', 'x-signature': signBytes(body, secret), 'x-forwarded-for': '192.0.2.66' };

function journaled(): { receiver: Receiver; journal: DeliveryJournal } {
  const journal = memoryJournal();
  return { journal, receiver: createReceiver({ secret, journal }).onAny(() => undefined) };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pix`;
}

async function deliverAndRead(url: string, receiver: Receiver, journal: DeliveryJournal) {
  const response = await fetch(url, { method: 'POST', headers, body });
  expect(response.status).toBe(200);
  await receiver.drain();
  const [entry] = await journal.list();
  return entry!;
}

async function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('remoteAddress in the journal, per adapter', () => {
  it('node: the socket peer', async () => {
    const { receiver, journal } = journaled();
    const server = createServer(createNodeHandler(receiver));
    try {
      expect((await deliverAndRead(await listen(server), receiver, journal)).remoteAddress).toBe('127.0.0.1');
    } finally {
      await closed(server);
    }
  });

  it("express: req.ip (the socket peer without the app's trust proxy)", async () => {
    const { receiver, journal } = journaled();
    const app = express();
    app.post('/webhooks/pix', createExpressMiddleware(receiver));
    const server = createServer(app);
    try {
      expect((await deliverAndRead(await listen(server), receiver, journal)).remoteAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    } finally {
      await closed(server);
    }
  });

  it('fastify: request.ip', async () => {
    const { receiver, journal } = journaled();
    const app = Fastify();
    await app.register(pixhookFastify, { receiver });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await deliverAndRead(`${url}/webhooks/pix`, receiver, journal)).remoteAddress).toBe('127.0.0.1');
    } finally {
      await app.close();
    }
  });

  it('next (Pages Router): the socket peer, never X-Forwarded-For', async () => {
    const { receiver, journal } = journaled();
    const handler = createPagesApiHandler(receiver);
    const server = createServer((req, res) => void handler(req, res));
    try {
      const entry = await deliverAndRead(await listen(server), receiver, journal);
      expect(entry.remoteAddress).toBe('127.0.0.1');
    } finally {
      await closed(server);
    }
  });

  it('web: absent unless the runtime hands one over in the context', async () => {
    const { receiver, journal } = journaled();
    const handler = createFetchHandler(receiver, { requireWaitUntil: false });
    let given: string | undefined;
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      const response = await handler(request, given === undefined ? {} : { remoteAddress: given });
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => (out[name] = value));
      res.writeHead(response.status, out);
      res.end(await response.text());
    });
    try {
      const url = await listen(server);
      expect((await deliverAndRead(url, receiver, journal)).remoteAddress).toBeUndefined();
      given = '203.0.113.50';
      expect((await deliverAndRead(url, receiver, journal)).remoteAddress).toBe('203.0.113.50');
    } finally {
      await closed(server);
    }
  });
});
