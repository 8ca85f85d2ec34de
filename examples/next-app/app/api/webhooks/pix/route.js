import { after } from 'next/server';
import { createReceiver } from 'pixhook';
import { createAppRouteHandler } from 'pixhook/next';

// A factory runs on the first request, so `next build` needs no secret. Background mode answers 200 at
// once; Next's after() keeps the handler running once the response is sent.
export const POST = createAppRouteHandler(() =>
  createReceiver({ secret: process.env.PIXHOOK_SECRET, mode: 'background', waitUntil: after }).on('transaction_paid', (event) =>
    console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'app'),
  ),
);
