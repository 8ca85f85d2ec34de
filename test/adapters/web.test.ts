import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../adapters/web/index.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { createReceiver } from '../../src/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_web_tests';
const bytes = bytesOf(variantAPaid);
const headers = { 'content-type': 'application/json', 'x-signature': signBytes(bytes, secret) };
const delivery = () => new Request('https://worker.example/webhooks/pix', { method: 'POST', headers, body: bytes });

describe('fetch handler', () => {
  it("calls a Worker's ctx.waitUntil as a method, so background work survives the answer", async () => {
    const events: PixEvent[] = [];
    const handler = createFetchHandler(createReceiver({ secret, mode: 'background' }).onAny((e) => void events.push(e)));
    // Like a Worker's ExecutionContext: waitUntil throws when called detached from ctx.
    const ctx = {
      kept: [] as Promise<unknown>[],
      waitUntil(this: { kept: Promise<unknown>[] } | undefined, promise: Promise<unknown>) {
        if (this === undefined) throw new TypeError('Illegal invocation');
        this.kept.push(promise);
      },
    };
    const res = await handler(delivery(), ctx);
    expect(res.status).toBe(200);
    expect(ctx.kept).toHaveLength(1);
    await Promise.all(ctx.kept);
    expect(events).toHaveLength(1);
  });

  it('answers 413 from Content-Length alone, without reading the body', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(1024))) });
    const request = new Request('https://worker.example/webhooks/pix', {
      method: 'POST',
      headers: { ...headers, 'content-length': String(5 * 1024 * 1024) },
      body,
      duplex: 'half',
    } as RequestInit);
    const res = await createFetchHandler(createReceiver({ secret }))(request);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'body_too_large' });
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('a body stream that errors answers 400 body_unreadable', async () => {
    const body = new ReadableStream<Uint8Array>({ pull: (c) => c.error(new Error('connection reset')) });
    const request = new Request('https://worker.example/webhooks/pix', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    const res = await createFetchHandler(createReceiver({ secret }))(request);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'body_unreadable' });
  });

  it('reads a body that arrives in many chunks as the exact bytes', async () => {
    const events: PixEvent[] = [];
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.slice(i, i + 1));
    const body = new ReadableStream<Uint8Array>({ pull: (c) => void (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
    const request = new Request('https://worker.example/webhooks/pix', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    const res = await createFetchHandler(createReceiver({ secret }).onAny((e) => void events.push(e)))(request);
    expect(res.status).toBe(200);
    expect(events).toHaveLength(1);
  });
});
