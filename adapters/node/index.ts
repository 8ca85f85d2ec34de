import type { ServerResponse } from 'node:http';
import { nodeBodyReader, writeNodeResult, type NodeRequest } from '../../src/node-http-bridge.js';
import type { Receiver } from '../../src/receiver.js';

export type NodeHandler = (req: NodeRequest, res: ServerResponse) => void;

/**
 * A `node:http` request handler: `createServer(createNodeHandler(receiver))`, or call it from your own
 * router for the webhook path. Reads the raw bytes with the receiver's limit and writes the core's answer.
 */
export function createNodeHandler(receiver: Receiver): NodeHandler {
  return (req, res) => {
    // receive() never rejects; only writing can throw (headers already sent by someone else).
    receiver
      .receive({ method: req.method, headers: req.headers, body: nodeBodyReader(req) })
      .then((result) => writeNodeResult(res, result))
      .catch(() => res.destroy());
  };
}
