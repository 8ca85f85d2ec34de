/// <reference types="bun" />
// docs/guides/web.md, as a Bun user writes it: the handler is Bun's `fetch` as it is.
import { createFetchHandler } from '../../../dist/adapters/web/index.js';
import { createReceiver } from '../../../dist/src/index.js';

const receiver = createReceiver({ secret: 'whsec_types' });
const handler = createFetchHandler(receiver);

Bun.serve({ port: 3000, fetch: handler });
Bun.serve({ port: 3000, fetch: (request, server) => handler(request, { remoteAddress: server.requestIP(request)?.address }) });

// The check is real: Bun's types refuse a fetch that answers no Response.
// @ts-expect-error not a Response
Bun.serve({ port: 3000, fetch: () => 42 });
