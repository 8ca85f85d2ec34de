import type { IncomingMessage, ServerResponse } from 'node:http';
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
    return readStream(req, limit, fix);
  };
}

/**
 * The stream's bytes, with `'data'`/`'end'` listeners and one promise: a declared length over the
 * limit fails before a byte is read, a single chunk of the declared length is used as is, and more
 * than the limit (or than declared) stops the read. Cheaper than a generic stream reader per request.
 */
function readStream(req: NodeRequest, limit: number, fix: string): Promise<Uint8Array> {
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0)) {
    return Promise.reject(new PixhookError('body_unreadable', 'The Content-Length header is not a length.'));
  }
  if (declared !== undefined && declared > limit) {
    req.resume();
    return Promise.reject(new PixhookError('body_too_large', 'The body is larger than this receiver accepts.'));
  }
  if (!req.readable) return Promise.reject(new PixhookError('body_already_parsed', `${alreadyParsed} ${fix}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const fail = (error: PixhookError) => {
      cleanup();
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limit) return fail(new PixhookError('body_too_large', 'The body is larger than this receiver accepts.'));
      if (declared !== undefined && total > declared) return fail(new PixhookError('body_unreadable', 'The body is longer than its Content-Length.'));
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (declared !== undefined && total !== declared) return reject(new PixhookError('body_unreadable', 'The body ended before its Content-Length.'));
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onError = (error: unknown) => {
      cleanup();
      reject(new PixhookError('body_unreadable', 'The request body could not be read.', { cause: error }));
    };
    const onAborted = () => onError(new Error('request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
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
  const write = (result: ReceiveResult) => {
    writeNodeResult(res, result);
    if (result.error) surfaceSafely(options.surface ?? logToConsole, result.error);
  };
  const handled = receiver.handle({
    method: req.method,
    headers: req.headers,
    body: nodeBodyReader(req, options.fix, { stringBodyIsRaw: options.stringBodyIsRaw ?? true }),
    ...(options.waitUntil && { waitUntil: options.waitUntil }),
  });
  if (handled instanceof Promise) return handled.then(write);
  write(handled);
  return Promise.resolve();
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
