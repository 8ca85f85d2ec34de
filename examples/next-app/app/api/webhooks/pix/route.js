import { after } from 'next/server';
import { createReceiver } from 'pixhook';
import { createAppRouteHandler } from 'pixhook/next';

// Background mode answers 200 at once; Next's after() keeps the handler running once the response is sent.
const receiver = createReceiver({ secret: process.env.PIXHOOK_SECRET, mode: 'background', waitUntil: after });
receiver.on('transaction_paid', (event) => console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'app'));

export const POST = createAppRouteHandler(receiver);
