import type { ServerResponse } from 'node:http';
import { handleNodeRequest, type NodeRequest } from '../../src/adapter-kit/index.js';
import { resolveReceiver, type ReceiverSource } from './app-route-handler.js';
import { optionNames, refuseUnknownOptions } from '../../src/adapter-kit/index.js';

export interface PagesApiHandlerOptions {
  /** Keeps background work alive after the answer: the platform's `waitUntil` (`after` is not for Pages). */
  waitUntil?: (promise: Promise<unknown>) => void;
}

export type PagesApiHandler = (req: NodeRequest, res: ServerResponse) => Promise<void>;

const bodyParserFix =
  "Next.js's API body parser consumed the body. " +
  'Add this line to the API route file (pages/api/…): export const config = { api: { bodyParser: false } }';

const waitUntilFix =
  "Pass the platform's waitUntil (e.g. `import { waitUntil } from '@vercel/functions'`) as the receiver's " +
  '`waitUntil` or `createPagesApiHandler(receiver, { waitUntil })`.';

/**
 * A Pages Router API route: `export default createPagesApiHandler(receiver)` plus, in the same file,
 * `export const config = { api: { bodyParser: false } }` (Next only reads it from the route file itself).
 */
export function createPagesApiHandler(source: ReceiverSource, options: PagesApiHandlerOptions = {}): PagesApiHandler {
  refuseUnknownOptions(options, createPagesApiHandlerOptionNames, 'createPagesApiHandler');
  const waitUntil = options.waitUntil;
  const receiver = resolveReceiver(source, waitUntil, waitUntilFix);
  return (req, res) =>
    handleNodeRequest(receiver(), req, res, { fix: bodyParserFix, stringBodyIsRaw: false, ...(waitUntil && { waitUntil }) }).catch(
      () => void res.destroy(),
    );
}

/** Every option createPagesApiHandler takes. */
const createPagesApiHandlerOptionNames = optionNames<PagesApiHandlerOptions>()(['waitUntil']);
