// Two node:http servers in one process: a gateway-family receiver (X-Signature) and a standard API Pix
// receiver (urlSecret, one-item `{ pix: [...] }`), both through createNodeHandler, both claiming a fresh
// dedupe key per call. Prints {"gateway":port,"apiPix":port}.
import { createServer } from 'node:http';
import { createReceiver, eventKey } from 'pixhook';
import { createApiPixReceiver } from 'pixhook/api-pix';
import { createNodeHandler } from 'pixhook/node';
import { secret } from './lib/payloads.js';

export const urlSecret = 'bench-url-secret-0123456789abcdef';
let n = 0;
const dedupeKey = (event) => `${eventKey(event)}#${n++}`;
const gateway = createReceiver({ secret, dedupeKey }).onAny(() => {});
const apiPix = createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } }, dedupeKey }).onAny(() => {});

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

console.log(JSON.stringify({ gateway: await listen(createNodeHandler(gateway)), apiPix: await listen(createNodeHandler(apiPix)) }));
