// node:http servers in one process, each through createNodeHandler and claiming a fresh dedupe key per
// delivery: the gateway receiver (X-Signature) and one createPspReceiver per PSP (Asaas, PagBank, Woovi,
// Mercado Pago against the emulator at argv[2]'s `apiBaseUrl`). argv[2]: JSON
// `{ asaasToken, pagbankToken, wooviPublicKey, mercadoPago: { secret, accessToken, apiBaseUrl } }`.
// Prints {"pid":…,"gateway":port,"asaas":port,…}.
import { createServer } from 'node:http';
import { createReceiver, eventKey } from 'pixhook';
import { createNodeHandler } from 'pixhook/node';
import { createPspReceiver } from 'pixhook/psp';
import { secret } from './lib/payloads.js';

const config = JSON.parse(process.argv[2]);
let n = 0;
const dedupeKey = (event) => `${eventKey(event)}#${n++}`;
const fresh = (event) => `${event.provider}:${event.transaction.id}#${n++}`;
const receivers = {
  gateway: createReceiver({ secret, dedupeKey }),
  asaas: createPspReceiver({ psp: 'asaas', token: config.asaasToken, dedupeKey: fresh }),
  pagbank: createPspReceiver({ psp: 'pagbank', token: config.pagbankToken, dedupeKey: fresh }),
  woovi: createPspReceiver({ psp: 'woovi', publicKeys: [config.wooviPublicKey], dedupeKey: fresh }),
  mercadoPago: createPspReceiver({ psp: 'mercado-pago', ...config.mercadoPago, dedupeKey: fresh }),
};

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

const ports = { pid: process.pid };
for (const [name, receiver] of Object.entries(receivers)) {
  receiver.onAny(() => {});
  ports[name] = await listen(createNodeHandler(receiver));
}
console.log(JSON.stringify(ports));
process.on('SIGTERM', () => process.exit(0)); // --cpu-prof writes its profile on a normal exit
