import { createServer, type Server, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PixhookConfigError } from '../../src/index.js';

export interface MtlsServerOptions extends Omit<ServerOptions, 'requestCert' | 'rejectUnauthorized'> {
  /** The server's own certificate and key (PEM). */
  cert: NonNullable<ServerOptions['cert']>;
  key: NonNullable<ServerOptions['key']>;
  /** The PSP's CA (PEM): the only issuer whose client certificates complete the handshake. */
  ca: NonNullable<ServerOptions['ca']>;
}

/**
 * An `https` server for the standard API Pix's mTLS: `requestCert` and `rejectUnauthorized` are always on,
 * so a client without a certificate, or with one from another CA, is refused in the handshake and never
 * reaches the handler. Give the same CA to `createApiPixReceiver({ auth: { mtls: { ca } } })`, which also
 * checks the chain and any pinned name or fingerprint per request.
 */
export function createMtlsServer(options: MtlsServerOptions, handler?: (req: IncomingMessage, res: ServerResponse) => void): Server {
  for (const name of ['cert', 'key', 'ca'] as const) {
    if (options?.[name] === undefined || options[name] === null || options[name] === '')
      throw new PixhookConfigError(`pixhook: createMtlsServer needs \`${name}\` (PEM).`);
  }
  const given = options as ServerOptions;
  if (given.requestCert === false || given.rejectUnauthorized === false)
    throw new PixhookConfigError(
      'pixhook: createMtlsServer always requests and verifies client certificates; remove requestCert/rejectUnauthorized.',
    );
  const tlsOptions: ServerOptions = { ...options, requestCert: true, rejectUnauthorized: true };
  return handler === undefined ? createServer(tlsOptions) : createServer(tlsOptions, handler);
}
