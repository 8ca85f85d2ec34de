import { internalsOf, refuseWithoutTls } from '../../src/adapter-kit/index.js';
import type { Receiver } from '../../src/index.js';
import { receiveWebRequest, type WebHandlerContext } from './web-bridge.js';

export type { WebHandlerContext } from './web-bridge.js';
export type FetchHandler = (request: Request, context?: WebHandlerContext) => Promise<Response>;

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
  const core = internalsOf(receiver);
  refuseWithoutTls(core, 'a fetch handler');
  const requireWaitUntil = options.requireWaitUntil ?? isCloudflareWorkers();
  return (request, context) => {
    const waitUntil = context?.waitUntil;
    return receiveWebRequest(core, request, {
      ...(waitUntil && { waitUntil: (promise: Promise<unknown>) => context!.waitUntil!(promise) }),
      ...(typeof context?.remoteAddress === 'string' && { remoteAddress: context.remoteAddress }),
      requireWaitUntil,
      keepAliveFix: 'Pass the Worker context: `fetch: (request, env, ctx) => handler(request, ctx)`.',
    });
  };
}

function isCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
}
