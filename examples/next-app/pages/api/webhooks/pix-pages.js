import { createReceiver } from 'pixhook';
import { createPagesApiHandler } from 'pixhook/next';

export const config = { api: { bodyParser: false } }; // Next reads this only here, in the route file
// A factory runs on the first request, so `next build` needs no secret.
export default createPagesApiHandler(() =>
  createReceiver({ secret: process.env.PIXHOOK_SECRET }).on('transaction_paid', (event) =>
    console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'pages'),
  ),
);
