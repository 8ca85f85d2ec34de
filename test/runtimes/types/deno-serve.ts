/// <reference types="deno" />
// docs/guides/web.md, as a Deno user writes it: the handler is Deno's serve handler as it is.
import { createFetchHandler } from '../../../dist/adapters/web/index.js';
import { createReceiver } from '../../../dist/src/index.js';

const receiver = createReceiver({ secret: 'whsec_types' });
const handler = createFetchHandler(receiver);

Deno.serve(handler);
Deno.serve({ port: 8000 }, handler);
Deno.serve({ port: 8000, handler });
Deno.serve((request, info) => handler(request, { remoteAddress: info.remoteAddr.hostname }));

// The check is real: Deno's types refuse a handler that answers no Response.
// @ts-expect-error not a Response
Deno.serve(() => 42);
