import { after } from 'next/server';
import { createReceiver } from 'pixhook';
import { createAppRouteHandler } from 'pixhook/next';

// A factory runs on the first request (`next build` needs no secret); after() keeps background work alive.
export const POST = createAppRouteHandler(() =>
  createReceiver({ secret: process.env.PIXHOOK_SECRET, mode: 'background', waitUntil: after }).on('transaction_paid', (event) =>
    console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'app'),
  ),
);
