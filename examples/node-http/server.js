import { createServer } from 'node:http';
import { createReceiver } from 'pixhook';
import { createNodeHandler } from 'pixhook/node';

const receiver = createReceiver({ secret: process.env.PIXHOOK_SECRET });
receiver.on('transaction_paid', (event) => console.log('paid', event.transaction.id, event.transaction.amountInCents, event.variant));
const handle = createNodeHandler(receiver);
// The path without its query string: a postbackUrl may carry ?token=….
const server = createServer((req, res) => (req.url?.split('?')[0] === '/webhooks/pix' ? handle(req, res) : res.writeHead(404).end()));
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
