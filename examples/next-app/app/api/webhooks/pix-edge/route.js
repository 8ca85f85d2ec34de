import { createReceiver } from 'pixhook';
import { createFetchHandler } from 'pixhook/web';

// Next's edge runtime: no node:crypto, no Buffer. pixhook/web verifies with Web Crypto. Created on the
// first request, so `next build` needs no secret.
export const runtime = 'edge';

let handler;
export function POST(request) {
  handler ??= createFetchHandler(
    createReceiver({ secret: process.env.PIXHOOK_SECRET }).on('transaction_paid', (event) =>
      console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'edge'),
    ),
  );
  return handler(request);
}
