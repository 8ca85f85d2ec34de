import type { Receiver } from '../../src/receiver.js';
import { receiveWebRequest, type WebHandlerContext } from '../../src/web-request-bridge.js';

export type { WebHandlerContext } from '../../src/web-request-bridge.js';
export type FetchHandler = (request: Request, context?: WebHandlerContext) => Promise<Response>;

/**
 * A fetch handler for Hono, Bun, Deno, Cloudflare Workers and anything else speaking Web `Request`/`Response`:
 * `app.post('/webhooks/pix', (c) => handler(c.req.raw, c.executionCtx))`. Pass the Worker's `ctx` so
 * background mode keeps its work alive after the answer. Uses Web Crypto where `node:crypto` is absent.
 */
export function createFetchHandler(receiver: Receiver): FetchHandler {
  return (request, context) => receiveWebRequest(receiver, request, context);
}
