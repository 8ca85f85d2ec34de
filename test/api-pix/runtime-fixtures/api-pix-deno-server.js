/* global Deno */
import { createApiPixReceiver } from 'pixhook/api-pix';
import { createFetchHandler } from 'pixhook/web';
import { createApiPixContractApp } from './api-pix-contract-app.js';

const app = createApiPixContractApp({ createApiPixReceiver, createFetchHandler });
Deno.serve(
  {
    hostname: '127.0.0.1',
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ listening: port, runtime: `deno ${Deno.version.deno}` })),
  },
  // The connection's peer, as Deno gives it: what `proxy` and `allowFrom` decide on.
  (request, info) => app(request, { remoteAddress: info.remoteAddr.hostname }),
);
