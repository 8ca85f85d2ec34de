import type { ServerResponse } from 'node:http';
import { internalsOf, logToConsole, serveNodeRequest, type NodeRequest } from '../../src/adapter-kit/index.js';
import type { Receiver } from '../../src/index.js';

/** Express's `next`: an error goes to the app's error handler. */
export type ExpressNext = (error?: unknown) => void;
export type ExpressMiddleware = (req: NodeRequest, res: ServerResponse, next: ExpressNext) => void;

const expressFix =
  'Mount the pixhook handler before any JSON body parser (e.g. before app.use(express.json())), ' +
  'or give it the raw bytes: express.raw({ type: "application/json" }) on this route, or ' +
  'express.json({ verify: (req, _res, buf) => { req.rawBody = buf } }).';

/** Express's `req.ip`: the socket's peer, or what the app's own `trust proxy` setting allows. */
function expressIp(req: NodeRequest): string | undefined {
  const ip = (req as { ip?: unknown }).ip;
  return typeof ip === 'string' ? ip : req.socket?.remoteAddress;
}

/**
 * Express 4 and 5 middleware: `app.post('/webhooks/pix', createExpressMiddleware(receiver))`.
 * Reads the raw bytes itself (or takes `express.raw` / a `verify`-stashed `req.rawBody`), and writes
 * the core's answer — a body parser that ran first included: the JSON 500 `body_already_parsed`
 * with the fix, also written to stderr like Express's own error handler does.
 */
export function createExpressMiddleware(receiver: Receiver): ExpressMiddleware {
  const core = internalsOf(receiver);
  return (req, res, next) => {
    // Express 4 ignores rejected promises from middleware: a failure to write goes to next().
    serveNodeRequest(core, req, res, { fix: expressFix, surface: logToConsole, remoteAddress: expressIp }, (error) => {
      if (error !== undefined) next(error);
    });
  };
}
