import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { sendHttp, serverTarget, type ContractTarget } from '../contract/contract-target.js';

/** A target for anything that listens itself (Fastify, @hono/node-server) and reports its URL. */
export function urlTarget(url: string, close: () => Promise<void>): ContractTarget {
  return { send: (request) => sendHttp(url + (request.path ?? ''), request), close };
}

/** A real `node:http` server around a `(req, res)` handler. */
export function nodeHandlerTarget(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  path = '/webhooks/pix',
): Promise<ContractTarget> {
  return serverTarget(createServer(handler), path);
}
