import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import { PixhookError, type Receiver, type ReceiveResult } from '../../src/index.js';

/** A Node request as frameworks leave it: maybe with a parsed `body` or a stashed `rawBody`. */
export type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; _body?: unknown };

const nodeFix =
  'Something read the request stream before pixhook (a body parser or a logging middleware). Hand the untouched ' +
  'request to the pixhook handler, or keep the exact bytes in req.rawBody.';

/**
 * The body reader every Node-based adapter hands to `receive`: the raw bytes a framework kept, or the
 * stream read with a limit. A stream a parser already consumed fails at once — never hangs. `fix` is
 * the adapter's own advice for a body parser that ran first.
 */
export function nodeBodyReader(
  req: NodeRequest,
  fix: string = nodeFix,
  options: { stringBodyIsRaw?: boolean } = {},
): (limit: number) => Promise<Uint8Array> {
  const stringBodyIsRaw = options.stringBodyIsRaw ?? true;
  return async (limit) => {
    const kept = keptBytes(req.rawBody) ?? (stringBodyIsRaw || typeof req.body !== 'string' ? keptBytes(req.body) : undefined);
    if (kept) return kept;
    // Express 4 sets `req.body = {}` without reading when the content type does not match, so only a
    // consumed stream (or body-parser's `_body` mark) proves a parser ran.
    if (wasConsumed(req) || (!stringBodyIsRaw && typeof req.body === 'string')) throw new PixhookError('body_already_parsed', `${alreadyParsed} ${fix}`);
    try {
      return await getRawBody(req, { limit, length: req.headers['content-length'] });
    } catch (error) {
      throw toBodyError(error, fix);
    }
  };
}

const alreadyParsed = 'The request body was already consumed by a body parser before pixhook could read the raw bytes.';

/** True when a parser already read the stream: the signed bytes are gone. */
export function wasConsumed(req: NodeRequest): boolean {
  return req.readableEnded || req._body === true || (req.body !== undefined && !req.readable);
}

function keptBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  return undefined;
}

function toBodyError(error: unknown, fix: string): PixhookError {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new PixhookError('body_too_large', 'The body is larger than this receiver accepts.', { cause: error });
  if (type === 'stream.not.readable') return new PixhookError('body_already_parsed', `${alreadyParsed} ${fix}`, { cause: error });
  return new PixhookError('body_unreadable', 'The request body could not be read.', { cause: error });
}

/** Writes the core's answer to a Node response, unchanged. A response that cannot be written is destroyed. */
export function writeNodeResult(res: ServerResponse, result: ReceiveResult): void {
  try {
    res.writeHead(result.status, result.headers);
    res.end(result.body);
  } catch {
    res.destroy();
  }
}

/**
 * The whole Node translation the node, Express and Pages adapters share: read, receive, write. A
 * misconfiguration gets the contract's JSON answer like everything else, and its error also goes to
 * `surface` (the framework's own error logging).
 */
export function handleNodeRequest(
  receiver: Receiver,
  req: NodeRequest,
  res: ServerResponse,
  options: {
    fix?: string;
    surface?: (error: PixhookError) => void;
    waitUntil?: (promise: Promise<unknown>) => void;
    /** False where a framework leaves a decoded string in `req.body` (Next's Pages parser): not the signed bytes. */
    stringBodyIsRaw?: boolean;
  } = {},
): Promise<void> {
  return receiver
    .receive({
      method: req.method,
      headers: req.headers,
      body: nodeBodyReader(req, options.fix, { stringBodyIsRaw: options.stringBodyIsRaw ?? true }),
      ...(options.waitUntil && { waitUntil: options.waitUntil }),
    })
    .then((result) => {
      writeNodeResult(res, result);
      if (result.error) surfaceSafely(options.surface ?? logToConsole, result.error);
    });
}

function surfaceSafely(surface: (error: PixhookError) => void, error: PixhookError): void {
  try {
    surface(error);
  } catch {
    // The answer is written; a failing logger changes nothing for the sender.
  }
}

/** Where Node servers (and Express's default error handler) write errors: stderr. */
export function logToConsole(error: PixhookError): void {
  console.error(`pixhook: ${error.message}`);
}
