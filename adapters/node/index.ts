import type { ServerResponse } from 'node:http';
import type { Receiver } from '../../src/index.js';
import { internalsOf, serveNodeRequest, type NodeRequest } from '../../src/adapter-kit/index.js';

export type { NodeRequest } from '../../src/adapter-kit/index.js';
export type NodeHandler = (req: NodeRequest, res: ServerResponse) => void;

/**
 * A `node:http` request handler: `createServer(createNodeHandler(receiver))`, or call it from your own
 * router for the webhook path. Reads the raw bytes with the receiver's limit and writes the core's answer.
 */
export function createNodeHandler(receiver: Receiver): NodeHandler {
  const core = internalsOf(receiver);
  return (req, res) => {
    // The core never throws and writing is guarded; destroying is the last line against a crash.
    serveNodeRequest(core, req, res, {}, (error) => {
      if (error !== undefined) res.destroy();
    });
  };
}
export { createMtlsServer } from './mtls-server.js';
export type { MtlsServerOptions } from './mtls-server.js';
