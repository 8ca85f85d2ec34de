import express5 from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { createReceiver } from '../../src/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { signBytes } from '../helpers/signing.js';

const secret = 'whsec_express_tests';
const body = JSON.stringify(variantAPaid);
const signature = signBytes(body, secret);

type ExpressModule = typeof express5;
type Handled = { events: PixEvent[] };

function receiverWith(handled: Handled) {
  return createReceiver({ secret }).onAny((event) => void handled.events.push(event));
}

// The error handler an app would have: it sees the PixhookError with its code and status.
function errorHandler(
  err: { status?: number; code?: string; message?: string },
  _req: unknown,
  res: { status(n: number): { json(v: unknown): void } },
  _next: unknown,
) {
  res.status(err.status ?? 500).json({ code: err.code, message: err.message });
}

for (const [name, express] of [
  ['Express 4', express4 as unknown as ExpressModule],
  ['Express 5', express5],
] as const) {
  describe(`${name}: raw bodies`, () => {
    it('express.json() mounted first fails at once with the JSON body_already_parsed answer and the Express fix, never an HTML page', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.use(express.json());
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith(handled)));
      app.use(errorHandler);
      const res = await request(app)
        .post('/webhooks/pix')
        .set('content-type', 'application/json')
        .set('x-signature', signature)
        .send(body)
        .timeout(3000);
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.error).toBe('body_already_parsed');
      expect(res.body.message).toMatch(/before any JSON body parser/);
      expect(res.body.message).toMatch(/express\.raw/);
      expect(handled.events).toHaveLength(0);
    });

    it('express.json() mounted first without an error handler still answers 500 rather than hanging', async () => {
      const app = express();
      app.use(express.json());
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith({ events: [] })));
      const res = await request(app)
        .post('/webhooks/pix')
        .set('content-type', 'application/json')
        .set('x-signature', signature)
        .send(body)
        .timeout(3000);
      expect(res.status).toBe(500);
      expect(res.text).not.toContain(secret);
    });

    it('express.raw() mounted first: the Buffer in req.body is verified', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.post('/webhooks/pix', express.raw({ type: 'application/json' }), createExpressMiddleware(receiverWith(handled)));
      const res = await request(app).post('/webhooks/pix').set('content-type', 'application/json').set('x-signature', signature).send(body);
      expect(res.status).toBe(200);
      expect(handled.events[0]?.name).toBe('transaction_paid');
    });

    it('express.json({ verify }) stashing req.rawBody is verified over the stashed bytes', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.use(
        express.json({
          verify: (req, _res, buf) => {
            (req as unknown as { rawBody: Buffer }).rawBody = buf;
          },
        }),
      );
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith(handled)));
      const res = await request(app).post('/webhooks/pix').set('content-type', 'application/json').set('x-signature', signature).send(body);
      expect(res.status).toBe(200);
      expect(handled.events).toHaveLength(1);
    });

    it('a sibling JSON route keeps working beside the webhook route', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith(handled)));
      app.post('/api/orders', express.json(), (req, res) => {
        res.json({ echoed: (req.body as { sku: string }).sku });
      });
      const hook = await request(app)
        .post('/webhooks/pix')
        .set('content-type', 'application/json')
        .set('x-signature', signature)
        .send(body);
      const sibling = await request(app).post('/api/orders').send({ sku: 'ABC-1' });
      expect(hook.status).toBe(200);
      expect(sibling.status).toBe(200);
      expect(sibling.body).toEqual({ echoed: 'ABC-1' });
      expect(handled.events).toHaveLength(1);
    });

    it('a non-matching parser that leaves the stream unread does not count as parsed', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.use(express.urlencoded({ extended: false }));
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith(handled)));
      const res = await request(app).post('/webhooks/pix').set('content-type', 'application/json').set('x-signature', signature).send(body);
      expect(res.status).toBe(200);
      expect(handled.events).toHaveLength(1);
    });

    it('a forged delivery is refused with 401 and the handler never sees it', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith(handled)));
      const res = await request(app)
        .post('/webhooks/pix')
        .set('content-type', 'application/json')
        .set('x-signature', signBytes(body, 'forged'))
        .send(body);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'signature_mismatch' });
      expect(handled.events).toHaveLength(0);
    });

    it('an aborted upload handles nothing and the app keeps serving', async () => {
      const handled: Handled = { events: [] };
      const app = express();
      app.post('/webhooks/pix', createExpressMiddleware(receiverWith(handled)));
      const errors: unknown[] = [];
      app.use((err: unknown, _req: unknown, res: { status(n: number): { end(): void } }, _next: unknown) => {
        errors.push(err);
        res.status(400).end();
      });
      const { createServer, request: rawRequest } = await import('node:http');
      const server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      await new Promise<void>((resolve) => {
        const req = rawRequest({
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/webhooks/pix',
          headers: { 'content-length': '1000', 'x-signature': signature },
        });
        req.on('error', () => resolve());
        req.write(body.slice(0, 50));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
      expect(handled.events).toHaveLength(0);
      // The server is still up and answers the gateway's next delivery normally.
      const next = await fetch(`http://127.0.0.1:${port}/webhooks/pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': signature },
        body,
      });
      server.close();
      expect(next.status).toBe(200);
      expect(handled.events).toHaveLength(1);
    });
  });
}
