import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import { PixhookError } from './pixhook-error.js';
import type { ReceiveResult } from './receiver.js';

/** A Node request as frameworks leave it: maybe with a parsed `body` or a stashed `rawBody`. */
export type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; _body?: unknown };

/**
 * The body reader every Node-based adapter hands to `receive`: the raw bytes a framework kept, or the
 * stream read with a limit. A stream a parser already consumed fails at once — never hangs.
 */
export function nodeBodyReader(req: NodeRequest): (limit: number) => Promise<Uint8Array> {
  return async (limit) => {
    const kept = keptBytes(req.rawBody) ?? keptBytes(req.body);
    if (kept) return kept;
    // Express 4 sets `req.body = {}` without reading when the content type does not match, so only a
    // consumed stream (or body-parser's `_body` mark) proves a parser ran.
    if (req.readableEnded || req._body === true || (req.body !== undefined && !req.readable)) {
      throw new PixhookError('body_already_parsed');
    }
    try {
      return await getRawBody(req, { limit, length: req.headers['content-length'] });
    } catch (error) {
      throw toBodyError(error);
    }
  };
}

function keptBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  return undefined;
}

function toBodyError(error: unknown): PixhookError {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.too.large') return new PixhookError('body_too_large', undefined, { cause: error });
  if (type === 'stream.not.readable') return new PixhookError('body_already_parsed', undefined, { cause: error });
  return new PixhookError('body_unreadable', undefined, { cause: error });
}

/** Writes the core's answer to a Node response, unchanged. */
export function writeNodeResult(res: ServerResponse, result: ReceiveResult): void {
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
  // An answer sent before an oversized body was read: close rather than drain megabytes.
  if (result.reason === 'body_too_large') res.setHeader('connection', 'close');
  res.end(result.body);
}
