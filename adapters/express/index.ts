import type { ServerResponse } from 'node:http';
import { nodeBodyReader, writeNodeResult, type NodeRequest } from '../../src/node-http-bridge.js';
import type { Receiver } from '../../src/receiver.js';

/** Express's `next`: an error goes to the app's error handler. */
export type ExpressNext = (error?: unknown) => void;
export type ExpressMiddleware = (req: NodeRequest, res: ServerResponse, next: ExpressNext) => void;

/**
 * Express 4 and 5 middleware: `app.post('/webhooks/pix', createExpressMiddleware(receiver))`.
 * Reads the raw bytes itself (or takes `express.raw` / a `verify`-stashed `req.rawBody`), and
 * writes the core's answer. A body parser that ran first reaches the error handler as a
 * `PixhookError` with code `body_already_parsed` and the fix in its message.
 */
export function createExpressMiddleware(receiver: Receiver): ExpressMiddleware {
  return (req, res, next) => {
    // Express 4 ignores rejected promises from middleware, so every failure is handed to next().
    receiver.receive({ method: req.method, headers: req.headers, body: nodeBodyReader(req) }).then((result) => {
      if (result.error) next(result.error);
      else writeNodeResult(res, result);
    }, next);
  };
}
