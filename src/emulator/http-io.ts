import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PayloadVariant } from '../index.js';

export class RequestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

const maxBodyBytes = 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBodyBytes) throw new RequestError(413, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB.');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
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
  if (variant === 'a') return { error: error.code, message: error.message, ...(error.details && { details: error.details }) };
  return {
    success: false,
    error: { code: error.code, message: error.message, ...(error.details && { details: error.details }) },
    timestamp: new Date(now).toISOString(),
  };
}
