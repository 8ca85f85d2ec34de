import { createServer, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createAppRouteHandler, createAppRouteHandlers, createPagesApiHandler } from '../../adapters/next/index.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { PixhookConfigError } from '../../src/index.js';
import { createReceiver } from '../../src/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_next_tests';
const bytes = bytesOf(variantAPaid);
const headers = { 'content-type': 'application/json', 'x-signature': signBytes(bytes, secret) };
const configLine = 'export const config = { api: { bodyParser: false } }';

/** What Next's default API body parser does: read the stream, leave JSON parsed (or text) in req.body. */
async function nextBodyParser(req: IncomingMessage & { body?: unknown }): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  req.body = req.headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : text;
}

describe('Next.js Pages Router handler', () => {
  for (const contentType of ['application/json', 'text/plain']) {
    it(`a body Next's parser consumed (${contentType}) fails with body_already_parsed and the config line to add`, async () => {
      const events: PixEvent[] = [];
      const handler = createPagesApiHandler(createReceiver({ secret }).onAny((e) => void events.push(e)));
      const server = createServer((req, res) => void nextBodyParser(req).then(() => handler(req, res)));
      const target = await serverTarget(server, '/api/webhooks/pix');
      try {
        const res = await target.send({ method: 'POST', headers: { ...headers, 'content-type': contentType }, body: bytes });
        expect(res.status).toBe(500);
        const answer = JSON.parse(res.body) as { error: string; message: string };
        expect(answer.error).toBe('body_already_parsed');
        expect(answer.message).toContain(configLine);
        expect(events).toHaveLength(0);
      } finally {
        await target.close();
      }
    });
  }

  it('takes raw bytes a custom server left in req.body as a Buffer (never what Next leaves)', async () => {
    const events: PixEvent[] = [];
    const handler = createPagesApiHandler(createReceiver({ secret }).onAny((e) => void events.push(e)));
    const server = createServer(async (req: IncomingMessage & { body?: unknown }, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      req.body = Buffer.concat(chunks);
      await handler(req, res);
    });
    const target = await serverTarget(server, '/api/webhooks/pix');
    try {
      expect((await target.send({ method: 'POST', headers, body: bytes })).status).toBe(200);
      expect(events).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it('refuses background mode without a waitUntil at creation, naming the fix', () => {
    const receiver = createReceiver({ secret, mode: 'background' });
    expect(() => createPagesApiHandler(receiver)).toThrow(PixhookConfigError);
    expect(() => createPagesApiHandler(receiver)).toThrow(/waitUntil/);
    expect(() => createPagesApiHandler(receiver, { waitUntil: () => undefined })).not.toThrow();
    expect(() => createPagesApiHandler(createReceiver({ secret, mode: 'background', waitUntil: () => undefined }))).not.toThrow();
  });
});

describe('Next.js handlers with a receiver factory', () => {
  it('create the receiver on the first request only, once, so next build needs no secret', async () => {
    let created = 0;
    const factory = () => {
      created++;
      return createReceiver({ secret });
    };
    const app = createAppRouteHandler(factory);
    const pages = createPagesApiHandler(factory);
    expect(created).toBe(0);
    const body = JSON.stringify(variantAPaid);
    const request = () =>
      new Request('http://localhost/api/webhooks/pix', { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    expect((await app(request())).status).toBe(200);
    expect((await app(request())).status).toBe(200);
    expect(created).toBe(1);
    expect(typeof pages).toBe('function');
  });

  it('check background mode without after() on that first request instead', async () => {
    const handler = createAppRouteHandler(() => createReceiver({ secret, mode: 'background' }));
    await expect(handler(new Request('http://localhost/', { method: 'POST', body: '{}' }))).rejects.toThrow(PixhookConfigError);
  });
});

describe('Next.js App Router handler', () => {
  it('createAppRouteHandlers exports every method: anything but POST gets the JSON 405 with Allow: POST', async () => {
    const events: PixEvent[] = [];
    const route = createAppRouteHandlers(createReceiver({ secret }).onAny((e) => void events.push(e)));
    expect(Object.keys(route).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const body = method === 'GET' || method === 'OPTIONS' ? null : bytes;
      const res = await route[method](new Request('http://localhost/api/webhooks/pix', { method, headers, body }));
      expect([method, res.status, res.headers.get('allow')]).toEqual([method, 405, 'POST']);
      expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
    }
    const head = await route.HEAD(new Request('http://localhost/api/webhooks/pix', { method: 'HEAD' }));
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'POST']);
    const post = await route.POST(new Request('http://localhost/api/webhooks/pix', { method: 'POST', headers, body: bytes }));
    expect(post.status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it("refuses background mode without after() at creation, naming Next's after", () => {
    const receiver = createReceiver({ secret, mode: 'background' });
    expect(() => createAppRouteHandler(receiver)).toThrow(PixhookConfigError);
    expect(() => createAppRouteHandler(receiver)).toThrow(/import \{ after \} from 'next\/server'/);
    expect(() => createAppRouteHandler(createReceiver({ secret }))).not.toThrow();
  });

  it('hands the background work to after(), which keeps it alive past the answer', async () => {
    const kept: Promise<unknown>[] = [];
    const events: PixEvent[] = [];
    const receiver = createReceiver({ secret, mode: 'background' }).onAny((e) => void events.push(e));
    const handler = createAppRouteHandler(receiver, { after: (promise) => void kept.push(promise) });
    const res = await handler(new Request('http://localhost/api/webhooks/pix', { method: 'POST', headers, body: bytes }));
    expect(res.status).toBe(200);
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    expect(events).toHaveLength(1);
  });

  it('enforces maxBodyBytes itself on a streamed body with no Content-Length', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        if (pulled > 1000) controller.close();
      },
    });
    const handler = createAppRouteHandler(createReceiver({ secret, maxBodyBytes: 100_000 }));
    const request = new Request('http://localhost/api/webhooks/pix', {
      method: 'POST',
      headers,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const res = await handler(request);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'body_too_large' });
    expect(pulled).toBeLessThan(5); // Stopped reading near the limit, not after 64 MB.
  });

  it('a Request whose body was already read fails with body_already_parsed', async () => {
    const handler = createAppRouteHandler(createReceiver({ secret }));
    const request = new Request('http://localhost/api/webhooks/pix', { method: 'POST', headers, body: bytes });
    await request.json();
    const res = await handler(request);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'body_already_parsed', message: expect.stringContaining('request.clone()') });
  });
});
