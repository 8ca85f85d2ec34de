import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import { PixhookError, type PayloadVariant } from '../index.js';

/** A request the emulated gateway refuses: its HTTP status, the gateway's error code (`apiCode`) and message. */
export class RequestError extends PixhookError {
  override name = 'RequestError';
  readonly apiCode: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, apiCode: string, message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}) {
    super('request_invalid', message, { status });
    this.apiCode = apiCode;
    this.details = details;
    this.headers = headers;
  }
}

const maxBodyBytes = 1024 * 1024;

/**
 * The request body, read with `raw-body`: at most 1 MiB (a larger `content-length` is refused before
 * reading), else 413 with `connection: close`, so the rest of an oversized upload is never read.
 */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  try {
    return await getRawBody(request, { limit: maxBodyBytes, length: request.headers['content-length'] ?? null });
  } catch (error) {
    const type = (error as { type?: unknown } | null)?.type;
    if (type === 'entity.too.large') {
      throw new RequestError(413, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB.', undefined, { connection: 'close' });
    }
    if (type === 'request.size.invalid')
      throw new RequestError(400, 'INVALID_REQUEST', 'The body is shorter or longer than its content-length.');
    if (type === 'request.aborted') throw new RequestError(400, 'INVALID_REQUEST', 'The request was aborted while its body was read.');
    throw error;
  }
}

export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new RequestError(400, 'INVALID_REQUEST', 'A JSON body is required.');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new RequestError(400, 'INVALID_REQUEST', 'The body is not valid JSON.');
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** Variant A: flat `{error, message, details}`; Variant B: nested `{success:false, error:{…}, timestamp}`. */
export function errorBody(variant: PayloadVariant, error: RequestError, now: number): unknown {
  if (variant === 'a') return { error: error.apiCode, message: error.message, ...(error.details && { details: error.details }) };
  return {
    success: false,
    error: { code: error.apiCode, message: error.message, ...(error.details && { details: error.details }) },
    timestamp: new Date(now).toISOString(),
  };
}

/** A header's first value; empty counts as absent. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
