/* global Bun */
import { createApiPixReceiver } from 'pixhook/api-pix';
import { createFetchHandler } from 'pixhook/web';
import { createApiPixContractApp } from './api-pix-contract-app.js';

const app = createApiPixContractApp({ createApiPixReceiver, createFetchHandler });
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  // The connection's peer, as Bun gives it: what `proxy` and `allowFrom` decide on.
  fetch: (request, bun) => app(request, { remoteAddress: bun.requestIP(request)?.address }),
});
console.log(JSON.stringify({ listening: server.port, runtime: `bun ${Bun.version}` }));
