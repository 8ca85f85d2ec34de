import { assertKeptAlive, isPromise, refuseWithoutTls, surfaceSafely, type ReceiverInternals } from '../../src/adapter-kit/index.js';
import { PixhookError, type ReceiveRequest, type ReceiveResult } from '../../src/index.js';

// Edge-safe on purpose: no `node:` import and no Buffer, so Workers, Deno, Bun and Next's edge runtime load it.

/** What a fetch runtime hands a handler besides the request (a Worker's `ctx`, Next's `after`). */
export interface WebHandlerContext {
  /** Keeps work after the answer alive (background mode on serverless). */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * The sender's address, for the journal, when the runtime gives one (Bun's `server.requestIP(request)`,
   * Deno's `info.remoteAddr.hostname`). Never read from `X-Forwarded-For`.
   */
  remoteAddress?: string;
}

const bodyUsedFix =
  'The Request body was read (request.json(), request.text(), …) before pixhook could read the raw bytes. ' +
  'Pass the untouched Request to the pixhook handler, or give it request.clone() before reading.';

/**
 * The body reader for a Web `Request`: streams the body and stops at `limit` bytes, because fetch
 * runtimes (and Next.js route handlers) put no limit on it. A body already read fails at once.
 */
export function webBodyReader(request: Request, fix: string = bodyUsedFix): (limit: number) => Promise<Uint8Array> {
  return async (limit) => {
    if (request.bodyUsed)
      throw new PixhookError('body_already_parsed', `The request body was already read before pixhook could read the raw bytes. ${fix}`);
    const declared = Number(request.headers.get('content-length') ?? Number.NaN);
    if (declared > limit) {
      // The 413 first: the body is let go after it, never awaited (a runtime's cancel may not settle).
      letGo(request.body?.cancel());
      throw new PixhookError('body_too_large', 'The body is larger than this receiver accepts.');
    }
    // A declared length within the limit: one arrayBuffer() read, the runtime's fast path. The core
    // checks the size of what arrives again, so a lying header cannot slip a larger body past the limit.
    if (Number.isSafeInteger(declared)) return readWhole(request);
    if (request.body === null) return new Uint8Array(0);
    return readLimited(request.body, limit);
  };
}

/** A cancel started and not waited for; its failure is nobody's business once the answer is decided. */
function letGo(cancel: Promise<void> | undefined): void {
  cancel?.catch(() => undefined);
}

async function readWhole(request: Request): Promise<Uint8Array> {
  try {
    return new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    throw new PixhookError('body_unreadable', 'The request body could not be read.', { cause: error });
  }
}

async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        letGo(reader.cancel());
        throw new PixhookError('body_too_large', 'The body is larger than this receiver accepts.');
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof PixhookError) throw error;
    throw new PixhookError('body_unreadable', 'The request body could not be read.', { cause: error });
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

// The core answers every reason with one headers object per receiver: the `Response` init around it
// is built once per object and status, not per request (the runtime copies it into each Response).
const inits = new WeakMap<Record<string, string>, ResponseInit>();

/** The core's answer as a Web `Response`, unchanged. */
function toWebResponse(result: ReceiveResult): Response {
  let init = inits.get(result.headers);
  if (init === undefined || init.status !== result.status) {
    init = { status: result.status, headers: result.headers };
    inits.set(result.headers, init);
  }
  return new Response(result.body, init);
}

interface ReceiveWebOptions extends WebHandlerContext {
  /** Refuse background mode without a `waitUntil` (serverless runtimes freeze work after the answer). */
  requireWaitUntil?: boolean;
  /** Advice for that case, in the platform's words. */
  keepAliveFix?: string;
  /** The framework's error logging for a misconfiguration. Default: `console.error`. */
  surface?: (error: PixhookError) => void;
}

/** The whole Web translation every fetch-style adapter shares: Request in, the core's answer out. */
export async function receiveWebRequest(receiver: ReceiverInternals, request: Request, options: ReceiveWebOptions = {}): Promise<Response> {
  const waitUntil = options.waitUntil;
  try {
    refuseWithoutTls(receiver, 'a Web Request');
  } catch (error) {
    surfaceSafely(options.surface, error as PixhookError);
    return toWebResponse(receiver.reject('internal_error', (error as Error).message));
  }
  if (options.requireWaitUntil) {
    try {
      assertKeptAlive(receiver, waitUntil, options.keepAliveFix ?? 'Pass the platform context: handler(request, ctx).');
    } catch (error) {
      surfaceSafely(options.surface, error as PixhookError);
      const from =
        options.remoteAddress === undefined
          ? { headers: request.headers }
          : { headers: request.headers, remoteAddress: options.remoteAddress };
      return toWebResponse(receiver.reject('internal_error', (error as Error).message, from));
    }
  }
  const method = request.method;
  const handed: ReceiveRequest = { method, headers: request.headers, body: webBodyReader(request) };
  // Called as a method: a Worker's `ctx.waitUntil` throws when detached from `ctx`.
  if (waitUntil) handed.waitUntil = (promise: Promise<unknown>) => waitUntil(promise);
  if (options.remoteAddress !== undefined) handed.remoteAddress = options.remoteAddress;
  // The API Pix receiver reads the suffix and query; a Web request has no socket to vouch for a certificate.
  if (receiver.peer === true) {
    handed.url = request.url;
    if (options.remoteAddress !== undefined) handed.peer = { address: options.remoteAddress };
  }
  // A receiver whose signature covers the body (the one that offers a body check) reads the bytes first: read
  // here, they reach the core in hand, which then answers in one synchronous pass instead of a chain of awaits.
  // A failed read is handed over as the failing reader, answered exactly as before. Anything but POST reads nothing.
  if (receiver.bodyCheck !== undefined && (method === 'POST' || method.toUpperCase() === 'POST')) {
    const read = handed.body as (limit: number) => Promise<Uint8Array>;
    try {
      handed.body = await read(receiver.maxBodyBytes);
    } catch (error) {
      handed.body = () => Promise.reject(error as Error);
    }
  }
  const handled = receiver.handle(handed);
  const result = isPromise(handled) ? await handled : handled;
  if (result.error) surfaceSafely(options.surface, result.error);
  return toWebResponse(result);
}
