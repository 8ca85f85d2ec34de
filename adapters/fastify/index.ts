import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { internalsOf, isPromise, peerOf } from '../../src/adapter-kit/index.js';
import { PixhookError, type Receiver, type ReceiveRequest, type ReceiveResult } from '../../src/index.js';

export interface PixhookFastifyOptions {
  receiver: Receiver;
  /** The webhook route, relative to the register prefix. Default `/webhooks/pix`. */
  path?: string;
  /** Fastify's body limit for this route. Default: the smaller of the app's `bodyLimit` and the receiver's `maxBodyBytes`. */
  bodyLimit?: number;
}

// Fastify's own body errors, answered with the contract's reasons instead of Fastify's error shape.
const bodyErrors: Record<string, 'body_too_large' | 'body_unreadable'> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'body_unreadable',
};

/**
 * A Fastify 5 plugin: `app.register(pixhookFastify, { receiver, path: '/webhooks/pix' })`, with or
 * without a `prefix`. Deliberately not wrapped in fastify-plugin: its raw-bytes content-type parser
 * stays inside this plugin's scope, so the app's other routes keep Fastify's JSON parsing.
 */
export const pixhookFastify: FastifyPluginAsync<PixhookFastifyOptions> = async (fastify, options) => {
  const core = internalsOf(options.receiver);
  const bodyLimit = options.bodyLimit ?? Math.min(fastify.initialConfig.bodyLimit ?? Infinity, core.maxBodyBytes);

  // Every content type (and none) arrives as the exact bytes; Fastify stops reading at bodyLimit.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const reason = error.code === undefined ? undefined : bodyErrors[error.code];
    if (reason === undefined) throw error; // Not ours: the app's error handler decides.
    const from = core.journaled ? { method: request.method, headers: request.headers, remoteAddress: request.ip } : undefined;
    return send(reply, core.reject(reason, error.message, from));
  });

  // The API Pix receiver also answers the suffixes PSPs append (`/pix`, `/rec`, `/cobr`, a trailing slash).
  const path = options.path ?? '/webhooks/pix';
  const urls = core.peer === true ? [path, `${path.replace(/\/+$/, '')}/*`] : [path];
  for (const url of urls)
    fastify.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url,
      bodyLimit,
      exposeHeadRoute: false,
      // Not async: when the core answers synchronously the reply goes out in this same turn, and the
      // handler returns nothing (Fastify then sends nothing more); otherwise Fastify awaits the promise.
      handler: (request, reply) => {
        const answer = (result: ReceiveResult) => {
          // A misconfiguration gets the contract's JSON answer, and Fastify's own logger hears of it.
          if (result.error) request.log.error({ err: result.error }, result.error.message);
          return send(reply, result);
        };
        // request.ip: the socket's peer, or what the app's own `trustProxy` allows. Only the journal reads it.
        const handed: ReceiveRequest = core.journaled
          ? { method: request.method, headers: request.headers, body: rawBodyOf(request.body), remoteAddress: request.ip }
          : { method: request.method, headers: request.headers, body: rawBodyOf(request.body) };
        // The API Pix receiver decides on the connection: the raw socket's peer and TLS verdict, never trustProxy's.
        if (core.peer === true) {
          if (request.raw.url !== undefined) handed.url = request.raw.url;
          handed.peer = peerOf(request.raw.socket);
        }
        const handled = core.handle(handed);
        if (isPromise(handled)) return handled.then(answer);
        answer(handled);
        return undefined;
      },
    });
};

const fastifyFix =
  'A hook or plugin replaced request.body before the pixhook route ran (e.g. a preValidation hook that parses it). ' +
  'Leave request.body untouched on the webhook route: the plugin gives it the exact bytes.';

/** The plugin's parser leaves a Buffer (or nothing); anything else means a hook replaced it. */
function rawBodyOf(body: unknown): Uint8Array | undefined | (() => Promise<never>) {
  if (body === undefined || body === null || body instanceof Uint8Array) return body ?? undefined;
  return () =>
    Promise.reject(
      new PixhookError('body_already_parsed', `The request body was already parsed before pixhook could read the raw bytes. ${fastifyFix}`),
    );
}

function send(reply: FastifyReply, result: ReceiveResult): FastifyReply {
  return reply.code(result.status).headers(result.headers).send(result.body);
}

export default pixhookFastify;
