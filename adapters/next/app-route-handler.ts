import { PixhookConfigError } from '../../src/pixhook-error.js';
import type { Receiver } from '../../src/receiver.js';
import { receiveWebRequest } from '../../src/web-request-bridge.js';

export interface AppRouteHandlerOptions {
  /**
   * Keeps background work alive after the answer: Next's `after` (from `next/server`) or a platform
   * `waitUntil`. Same as the receiver's `waitUntil` option; either one is enough.
   */
  after?: (promise: Promise<unknown>) => void;
}

export type AppRouteHandler = (request: Request) => Promise<Response>;

/** A receiver, or a function that creates it on the first request (so `next build` needs no secret). */
export type ReceiverSource = Receiver | (() => Receiver);

/**
 * An App Router route handler: `export const POST = createAppRouteHandler(receiver)` in
 * `app/api/webhooks/pix/route.ts`. Enforces `maxBodyBytes` itself while streaming, because route
 * handlers have no body limit. Never imports `next`: pass `after` in (here or as the receiver's `waitUntil`).
 */
export function createAppRouteHandler(source: ReceiverSource, options: AppRouteHandlerOptions = {}): AppRouteHandler {
  const after = options.after;
  const receiver = resolveReceiver(
    source,
    after,
    "Pass Next's after: `import { after } from 'next/server'`, then `createReceiver({ ..., waitUntil: after })` " +
      'or `createAppRouteHandler(receiver, { after })`.',
  );
  return async (request) => receiveWebRequest(receiver(), request, after ? { waitUntil: after } : {});
}

/**
 * Next evaluates route modules during `next build`, where secrets are often absent: a factory defers
 * `createReceiver` (and the keep-alive check) to the first request. A receiver given directly is checked now.
 */
export function resolveReceiver(source: ReceiverSource, keeper: unknown, fix: string): () => Receiver {
  if (typeof source !== 'function') {
    assertKeptAlive(source, keeper, fix);
    return () => source;
  }
  let created: Receiver | undefined;
  return () => {
    if (!created) {
      const receiver = source();
      assertKeptAlive(receiver, keeper, fix);
      created = receiver;
    }
    return created;
  };
}

/** Background work on serverless dies with the response unless something keeps it alive: refuse early. */
function assertKeptAlive(receiver: Receiver, keeper: unknown, fix: string): void {
  if (receiver.mode !== 'background' || receiver.hasWaitUntil || keeper !== undefined) return;
  throw new PixhookConfigError(
    'pixhook: background mode on Next.js needs a way to keep work alive after the answer, or the platform ' +
      `may freeze the function and lose events. ${fix} Or use mode "inline".`,
  );
}
