import { createReceiver } from 'pixhook';
import { createFetchHandler } from 'pixhook/web';

// Next's edge runtime: no node:crypto, no Buffer. pixhook/web verifies with Web Crypto. Created on the
// first request, so `next build` needs no secret.
export const runtime = 'edge';

let handler;
function handle(request) {
  handler ??= createFetchHandler(
    createReceiver({ secret: process.env.PIXHOOK_SECRET }).on('transaction_paid', (event) =>
      console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'edge'),
    ),
  );
  return handler(request);
}

// Every method is exported, so a GET gets pixhook's JSON 405 (Allow: POST), not Next's empty one.
export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
