import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createReceiver } from 'pixhook';
import { createFetchHandler } from 'pixhook/web';

const receiver = createReceiver({ secret: process.env.PIXHOOK_SECRET });
receiver.on('transaction_paid', (event) => console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant));
const handle = createFetchHandler(receiver);
const app = new Hono().all('/webhooks/pix', (c) => handle(c.req.raw)); // Workers: handle(c.req.raw, c.executionCtx)
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' });
