import Fastify from 'fastify';
import fp from 'fastify-plugin';
import { describe, expect, it } from 'vitest';
import pixhookDefault, { pixhookFastify } from '../../adapters/fastify/index.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { createReceiver } from '../../src/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { signBytes } from '../helpers/signing.js';

const secret = 'whsec_fastify_tests';
const body = JSON.stringify(variantAPaid);
const headers = { 'content-type': 'application/json', 'x-signature': signBytes(body, secret) };

function receiverWith(events: PixEvent[], options: { maxBodyBytes?: number } = {}) {
  return createReceiver({ secret, ...options }).onAny((event) => void events.push(event));
}

describe('Fastify plugin', () => {
  it('keeps JSON parsing for a sibling route while the webhook gets raw bytes', async () => {
    const events: PixEvent[] = [];
    const app = Fastify();
    app.post('/orders', async (request) => ({ parsed: request.body }));
    await app.register(pixhookFastify, { receiver: receiverWith(events), path: '/webhooks/pix' });
    // Registered after the webhook: the raw parser did not leak into the parent scope.
    app.post('/later', async (request) => ({ parsed: request.body }));

    const sibling = await app.inject({ method: 'POST', url: '/orders', payload: { id: 7 } });
    expect(sibling.json()).toEqual({ parsed: { id: 7 } });
    const hook = await app.inject({ method: 'POST', url: '/webhooks/pix', headers, payload: body });
    expect(hook.statusCode).toBe(200);
    expect(events).toHaveLength(1);
    expect((await app.inject({ method: 'POST', url: '/later', payload: { ok: 1 } })).json()).toEqual({ parsed: { ok: 1 } });
    await app.close();
  });

  it('does not leak its parser even when registered inside an fp-wrapped plugin', async () => {
    const app = Fastify();
    await app.register(
      fp(async (scope) => {
        await scope.register(pixhookDefault, { receiver: receiverWith([]) });
        scope.post('/inside', async (request) => ({ parsed: request.body }));
      }),
    );
    expect((await app.inject({ method: 'POST', url: '/inside', payload: { a: 1 } })).json()).toEqual({ parsed: { a: 1 } });
    expect((await app.inject({ method: 'POST', url: '/webhooks/pix', headers, payload: body })).statusCode).toBe(200);
    await app.close();
  });

  it('answers every other method, HEAD included, 405 with Allow: POST like the other adapters', async () => {
    const app = Fastify();
    await app.register(pixhookFastify, { receiver: receiverWith([]) });
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const res = await app.inject({ method, url: '/webhooks/pix' });
      expect([method, res.statusCode, res.headers['allow']]).toEqual([method, 405, 'POST']);
    }
    await app.close();
  });

  it('works under a register prefix', async () => {
    const events: PixEvent[] = [];
    const app = Fastify();
    await app.register(pixhookFastify, { prefix: '/hooks', receiver: receiverWith(events), path: '/pix' });
    expect((await app.inject({ method: 'POST', url: '/hooks/pix', headers, payload: body })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/webhooks/pix', headers, payload: body })).statusCode).toBe(404);
    expect(events).toHaveLength(1);
    await app.close();
  });

  it("answers the contract's 413 when Fastify's own bodyLimit is the smaller limit", async () => {
    const app = Fastify({ bodyLimit: 50 });
    await app.register(pixhookFastify, { receiver: receiverWith([]) });
    const res = await app.inject({ method: 'POST', url: '/webhooks/pix', headers, payload: body });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'body_too_large' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    await app.close();
  });

  it("answers the contract's 413 for a plugin bodyLimit option and for maxBodyBytes", async () => {
    for (const [pluginLimit, maxBodyBytes] of [
      [40, undefined],
      [undefined, 40],
      [10_000, 40], // Fastify reads it all; the core still refuses it.
    ] as const) {
      const app = Fastify();
      await app.register(pixhookFastify, {
        receiver: receiverWith([], maxBodyBytes === undefined ? {} : { maxBodyBytes }),
        ...(pluginLimit !== undefined && { bodyLimit: pluginLimit }),
      });
      const res = await app.inject({ method: 'POST', url: '/webhooks/pix', headers, payload: body });
      expect(res.statusCode, `${pluginLimit} ${maxBodyBytes}`).toBe(413);
      expect(res.json()).toMatchObject({ error: 'body_too_large' });
      await app.close();
    }
  });

  it('verifies a body sent with no content type or an unusual one, over its exact bytes', async () => {
    const events: PixEvent[] = [];
    const app = Fastify();
    await app.register(pixhookFastify, { receiver: receiverWith(events) });
    const plain = await app.inject({
      method: 'POST',
      url: '/webhooks/pix',
      headers: { ...headers, 'content-type': 'text/plain' },
      payload: body,
    });
    expect(plain.statusCode).toBe(200);
    const bare = await app.inject({
      method: 'POST',
      url: '/webhooks/pix',
      headers: { 'x-signature': headers['x-signature'] },
      payload: body,
    });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toEqual({ ok: true, reason: 'duplicate' });
    expect(events).toHaveLength(1);
    await app.close();
  });

  it("hands errors that are not the webhook body's to the app's error handler", async () => {
    const app = Fastify();
    app.setErrorHandler((error: Error, _request, reply) => reply.code(418).send({ seen: error.message }));
    app.addHook('preHandler', async (request) => {
      if (request.headers['x-deny'] !== undefined) throw new Error('denied by the app');
    });
    await app.register(pixhookFastify, { receiver: receiverWith([]) });
    const res = await app.inject({ method: 'POST', url: '/webhooks/pix', headers: { ...headers, 'x-deny': '1' }, payload: body });
    expect(res.statusCode).toBe(418);
    expect(res.json()).toEqual({ seen: 'denied by the app' });
    await app.close();
  });
});
