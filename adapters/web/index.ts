import { internalsOf, refuseWithoutTls } from '../../src/adapter-kit/index.js';
import type { Receiver } from '../../src/index.js';
import { receiveWebRequest, type WebHandlerContext } from './web-bridge.js';
import { optionNames, refuseUnknownOptions } from '../../src/adapter-kit/index.js';

export type { WebHandlerContext } from './web-bridge.js';
/**
 * A Web fetch handler. Its second argument is whatever the runtime passes beside the request (a Worker's
 * `ctx`, Bun's `server`, Deno's `info`), so it is Bun's `fetch` and Deno's `serve` handler as it is; only
 * a `waitUntil` function and a `remoteAddress` string on it are read.
 */
export type FetchHandler = (request: Request, context?: WebHandlerContext | object) => Promise<Response>;

export interface FetchHandlerOptions {
  /**
   * Answer 500 instead of accepting background work that nothing keeps alive. Default: true on
   * Cloudflare Workers (which freeze a request's work once it is answered), false elsewhere.
   */
  requireWaitUntil?: boolean;
}

/**
 * A fetch handler for Hono, Bun, Deno, Cloudflare Workers and anything else speaking Web `Request`/`Response`:
 * `app.post('/webhooks/pix', (c) => handler(c.req.raw, c.executionCtx))`. Pass the Worker's `ctx` so
 * background mode keeps its work alive after the answer. Uses Web Crypto where `node:crypto` is absent.
 */
export function createFetchHandler(receiver: Receiver, options: FetchHandlerOptions = {}): FetchHandler {
  refuseUnknownOptions(options, createFetchHandlerOptionNames, 'createFetchHandler');
  const core = internalsOf(receiver);
  refuseWithoutTls(core, 'a fetch handler');
  const requireWaitUntil = options.requireWaitUntil ?? isCloudflareWorkers();
  // Without a runtime context (Node servers, Hono on Node), every request shares one options object.
  const plain = { requireWaitUntil, keepAliveFix };
  return (request, given) => {
    const context = given as WebHandlerContext | undefined;
    const waitUntil = typeof context?.waitUntil === 'function' ? context.waitUntil : undefined;
    const remoteAddress = typeof context?.remoteAddress === 'string' ? context.remoteAddress : undefined;
    if (waitUntil === undefined && remoteAddress === undefined) return receiveWebRequest(core, request, plain);
    return receiveWebRequest(core, request, {
      ...(waitUntil && { waitUntil: (promise: Promise<unknown>) => waitUntil.call(context, promise) }),
      ...(remoteAddress !== undefined && { remoteAddress }),
      requireWaitUntil,
      keepAliveFix,
    });
  };
}

const keepAliveFix = 'Pass the Worker context: `fetch: (request, env, ctx) => handler(request, ctx)`.';

function isCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
}

/** Every option createFetchHandler takes. */
const createFetchHandlerOptionNames = optionNames<FetchHandlerOptions>()(['requireWaitUntil']);
