import type { ServerResponse } from 'node:http';
import { nodeBodyReader, writeNodeResult, type NodeRequest } from '../../src/node-http-bridge.js';
import { PixhookError } from '../../src/pixhook-error.js';
import { resolveReceiver, type ReceiverSource } from './app-route-handler.js';

export interface PagesApiHandlerOptions {
  /** Keeps background work alive after the answer: the platform's `waitUntil` (`after` is not for Pages). */
  waitUntil?: (promise: Promise<unknown>) => void;
}

export type PagesApiHandler = (req: NodeRequest, res: ServerResponse) => Promise<void>;

const bodyParserFix =
  "Next.js's API body parser consumed the body before pixhook could read the raw bytes. " +
  'Add this line to the API route file (pages/api/…): export const config = { api: { bodyParser: false } }';

/**
 * A Pages Router API route: `export default createPagesApiHandler(receiver)` plus, in the same file,
 * `export const config = { api: { bodyParser: false } }` (Next only reads it from the route file itself).
 */
export function createPagesApiHandler(source: ReceiverSource, options: PagesApiHandlerOptions = {}): PagesApiHandler {
  const waitUntil = options.waitUntil;
  const receiver = resolveReceiver(
    source,
    waitUntil,
    "Pass the platform's waitUntil (e.g. `import { waitUntil } from '@vercel/functions'`) as the receiver's " +
      '`waitUntil` or `createPagesApiHandler(receiver, { waitUntil })`.',
  );
  return async (req, res) => {
    const result = await receiver().receive({
      method: req.method,
      headers: req.headers,
      body: pagesBodyReader(req),
      ...(waitUntil && { waitUntil }),
    });
    writeNodeResult(res, result);
  };
}

/** Next's parser leaves an object or a decoded string in `req.body`: neither is the signed bytes. */
function pagesBodyReader(req: NodeRequest): (limit: number) => Promise<Uint8Array> {
  const read = nodeBodyReader(req);
  return async (limit) => {
    const keptBytes = req.rawBody instanceof Uint8Array || req.body instanceof Uint8Array;
    if (!keptBytes && (req.body !== undefined || req.readableEnded)) {
      throw new PixhookError('body_already_parsed', bodyParserFix);
    }
    try {
      return await read(limit);
    } catch (error) {
      if (error instanceof PixhookError && error.code === 'body_already_parsed') {
        throw new PixhookError('body_already_parsed', bodyParserFix, { cause: error });
      }
      throw error;
    }
  };
}
