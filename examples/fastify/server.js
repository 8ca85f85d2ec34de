import Fastify from 'fastify';
import { createReceiver } from 'pixhook';
import { pixhookFastify } from 'pixhook/fastify';

const receiver = createReceiver({ secret: process.env.PIXHOOK_SECRET });
receiver.on('transaction_paid', (event) => console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant));
const app = Fastify();
await app.register(pixhookFastify, { receiver, path: '/webhooks/pix' }); // raw bytes on this route only
app.post('/orders', async (request) => ({ received: request.body })); // still parsed JSON
await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
