import {
  assertKeptAlive,
  internalsOf,
  refuseWithoutAddress,
  refuseWithoutTls,
  surfaceSafely,
  type ReceiverInternals,
} from '../../src/adapter-kit/index.js';
import { PixhookConfigError, type Receiver } from '../../src/index.js';
import { receiveWebRequest } from '../web/web-bridge.js';
import { optionNames, refuseUnknownOptions } from '../../src/adapter-kit/index.js';

export interface AppRouteHandlerOptions {
  /**
   * Keeps background work alive after the answer: Next's `after` (from `next/server`) or a platform
   * `waitUntil`. Same as the receiver's `waitUntil` option; either one is enough.
   */
  after?: (promise: Promise<unknown>) => void;
  /**
   * The caller's address as your platform vouches for it, for API Pix `auth.proxy` and
   * `auth.urlSecret.allowFrom` (route handlers get no socket): e.g. `(request) => request.headers.get('x-real-ip') ?? undefined`
   * on a host whose edge sets that header and drops the caller's own. Such a receiver is refused without it.
   */
  clientAddress?: (request: Request) => string | undefined;
}

export type AppRouteHandler = (request: Request) => Promise<Response>;

/** A receiver, or a function that creates it on the first request (so `next build` needs no secret). */
export type ReceiverSource = Receiver | (() => Receiver);

const afterFix =
  "Pass Next's after: `import { after } from 'next/server'`, then `createReceiver({ ..., waitUntil: after })` " +
  'or `createAppRouteHandler(receiver, { after })`.';

/**
 * An App Router route handler: `export const POST = createAppRouteHandler(receiver)` in
 * `app/api/webhooks/pix/route.ts`. Enforces `maxBodyBytes` itself while streaming, because route
 * handlers have no body limit. Never imports `next`: pass `after` in (here or as the receiver's `waitUntil`).
 */
export function createAppRouteHandler(source: ReceiverSource, options: AppRouteHandlerOptions = {}): AppRouteHandler {
  refuseUnknownOptions(options, createAppRouteHandlerOptionNames, 'createAppRouteHandler');
  const { after, clientAddress } = options;
  if (clientAddress !== undefined && typeof clientAddress !== 'function')
    throw new PixhookConfigError("pixhook: `clientAddress` must be a function of the request that returns the caller's address.");
  const receiver = resolveReceiver(source, after, afterFix, (core) => {
    refuseWithoutTls(core, "Next's App Router", ' with `createAppRouteHandler(receiver, { clientAddress })`');
    if (clientAddress === undefined) refuseWithoutAddress(core, "Next's App Router", addressFix);
  });
  return async (request) => {
    const remoteAddress = clientAddress === undefined ? undefined : addressOf(clientAddress, request);
    return receiveWebRequest(receiver(), request, {
      ...(after && { waitUntil: after }),
      ...(remoteAddress !== undefined && { remoteAddress }),
    });
  };
}

const addressFix =
  "Pass `createAppRouteHandler(receiver, { clientAddress: (request) => … })` reading the header your host's edge sets, or serve this receiver from the Pages Router or a Node server.";

/** The app's `clientAddress`; one that throws gives no address (so an address check refuses), and is reported. */
function addressOf(clientAddress: (request: Request) => string | undefined, request: Request): string | undefined {
  try {
    const address = clientAddress(request);
    return typeof address === 'string' && address !== '' ? address : undefined;
  } catch {
    surfaceSafely(
      undefined,
      new PixhookConfigError('pixhook: `clientAddress` threw; the call is treated as coming from no known address.'),
    );
    return undefined;
  }
}

/** One handler per HTTP method, so a route file can export them all. */
export type AppRouteHandlers = Record<'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS', AppRouteHandler>;

/**
 * Every method of an App Router route: `export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } =
 * createAppRouteHandlers(receiver)`. Next answers a method the route does not export with its own empty
 * 405; exported, every method reaches the core, which answers anything but POST with the JSON 405 and
 * `Allow: POST` of every other adapter.
 */
export function createAppRouteHandlers(source: ReceiverSource, options: AppRouteHandlerOptions = {}): AppRouteHandlers {
  const handler = createAppRouteHandler(source, options);
  return { GET: handler, HEAD: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler, OPTIONS: handler };
}

/**
 * Next evaluates route modules during `next build`, where secrets are often absent: a factory defers
 * `createReceiver` (and the keep-alive check) to the first request. A receiver given directly is checked now.
 */
export function resolveReceiver(
  source: ReceiverSource,
  keeper: unknown,
  fix: string,
  check: (core: ReceiverInternals) => void = () => {},
): () => ReceiverInternals {
  if (typeof source !== 'function') {
    const core = internalsOf(source);
    assertKeptAlive(core, keeper, fix);
    check(core);
    return () => core;
  }
  let created: ReceiverInternals | undefined;
  return () => {
    if (!created) {
      const core = internalsOf(source());
      assertKeptAlive(core, keeper, fix);
      check(core);
      created = core;
    }
    return created;
  };
}

/** Every option createAppRouteHandler takes. */
const createAppRouteHandlerOptionNames = optionNames<AppRouteHandlerOptions>()(['after', 'clientAddress']);
