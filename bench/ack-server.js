// Background mode behind the node adapter, every handler taking 5 s. Prints {"port":n}.
import { createServer } from 'node:http';
import { createReceiver } from 'pixhook';
import { createNodeHandler } from 'pixhook/node';
import { secret } from './lib/payloads.js';

const receiver = createReceiver({ secret, mode: 'background' }).onAny(() => new Promise((resolve) => setTimeout(resolve, 5000)));
const server = createServer(createNodeHandler(receiver));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
