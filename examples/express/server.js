import express from 'express';
import { createReceiver } from 'pixhook';
import { createExpressMiddleware } from 'pixhook/express';

const receiver = createReceiver({ secret: process.env.PIXHOOK_SECRET });
receiver.on('transaction_paid', (event) => console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant));
const app = express();
app.all('/webhooks/pix', createExpressMiddleware(receiver)); // before any express.json(); non-POST → 405
app.use(express.json()); // the app's other routes keep parsed JSON
app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
