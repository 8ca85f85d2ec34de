import { after } from 'next/server';
import { createReceiver } from 'pixhook';
import { createAppRouteHandlers } from 'pixhook/next';

// A factory runs on the first request (no secret at build); every method is exported, so GET gets the JSON 405.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = createAppRouteHandlers(() =>
  createReceiver({ secret: process.env.PIXHOOK_SECRET, mode: 'background', waitUntil: after }).on('transaction_paid', (event) =>
    console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'app'),
  ),
);
