import { createReceiver } from 'pixhook';
import { createPagesApiHandler } from 'pixhook/next';

export const config = { api: { bodyParser: false } }; // Next reads this only here, in the route file

const receiver = createReceiver({ secret: process.env.PIXHOOK_SECRET });
receiver.on('transaction_paid', (event) => console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant, 'pages'));

export default createPagesApiHandler(receiver);
