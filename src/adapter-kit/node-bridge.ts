import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { PeerConnection, PeerTls } from '../intake/peer-connection.js';
import type { ReceiveRequest } from '../intake/receiver-types.js';
import type { ReceiveResult } from '../intake/receive-answer.js';
import type { ChunkCheck, ReceiverInternals } from '../intake/receiver-types.js';
import { isPlainHost } from '../shared/loopback.js';
import { isPromise } from '../shared/maybe-promise.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { surfaceSafely } from './surface-error.js';

// The one Node bridge: node:http, Express, Fastify's raw request and Next's Pages router serve a
// receiver through it, and the console (a fetch app) is mounted on Node through it too.

/** A Node request as frameworks leave it: maybe with a parsed `body` or a stashed `rawBody`. */
export type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; _body?: unknown };

const nodeFix =
  'Something read the request stream before pixhook (a body parser or a logging middleware). Hand the untouched ' +
  'request to the pixhook handler, or keep the exact bytes in req.rawBody.';

/**
 * How a Node request's body arrived: its bytes, or the failure the core answers with its reason and message;
 * with a `check` when the receiver's signature was computed over exactly these bytes as they arrived.
 */
type BodyDone = (error: PixhookError | undefined, bytes?: Uint8Array, check?: ChunkCheck) => void;

/**
 * Reads the body every Node-based adapter hands to the core: the raw bytes a framework kept, or the
 * stream read with a limit. A stream a parser already consumed fails at once — never hangs. `fix` is
 * the adapter's own advice for a body parser that ran first. Callbacks, no promise: on the hot path
 * the core then answers in the stream's own `'end'` turn.
 */
function readNodeBody(receiver: ReceiverInternals, req: NodeRequest, fix: string, stringBodyIsRaw: boolean, done: BodyDone): void {
  const kept = keptBytes(req.rawBody) ?? (stringBodyIsRaw || typeof req.body !== 'string' ? keptBytes(req.body) : undefined);
  if (kept) return done(undefined, kept);
  // Express 4 sets `req.body = {}` without reading when the content type does not match, so only a
  // consumed stream (or body-parser's `_body` mark) proves a parser ran.
  if (wasConsumed(req) || (!stringBodyIsRaw && typeof req.body === 'string')) {
    return done(new PixhookError('body_already_parsed', `${alreadyParsed} ${fix}`));
  }
  readStream(req, receiver, fix, done);
}

/**
 * The stream's bytes, with `'data'`/`'end'` listeners: a declared length over the limit fails before
 * a byte is read, a single chunk of the declared length is used as is, and more than the limit (or
 * than declared) stops the read. Cheaper than a generic stream reader per request. Where the receiver
 * offers a body check, its signature header is read before the first byte and every kept chunk is
 * hashed as it arrives, so the digest is ready at `'end'`.
 */
function readStream(req: NodeRequest, receiver: ReceiverInternals, fix: string, done: BodyDone): void {
  const limit = receiver.maxBodyBytes;
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0)) {
    return done(new PixhookError('body_unreadable', 'The Content-Length header is not a length.'));
  }
  if (declared !== undefined && declared > limit) {
    req.resume();
    return done(new PixhookError('body_too_large', 'The body is larger than this receiver accepts.'));
  }
  if (!req.readable) return done(new PixhookError('body_already_parsed', `${alreadyParsed} ${fix}`));
  const check = receiver.bodyCheck?.(req.headers);
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let total = 0;
  // Listeners stay attached (they go with the request): a flag makes later events no-ops, and the
  // 'error' listener keeps a late socket error from becoming an unhandled one.
  let finished = false;
  const finish = (error: PixhookError | undefined, bytes?: Uint8Array) => {
    finished = true;
    done(error, bytes);
  };
  const fail = (error: PixhookError) => {
    req.resume();
    finish(error);
  };
  const onError = (error: unknown) => {
    if (!finished)
      finish(new PixhookError('body_unreadable', 'The request body could not be read.', { cause: error ?? new Error('request aborted') }));
  };
  req.on('data', (chunk: Buffer) => {
    if (finished) return;
    total += chunk.byteLength;
    if (total > limit) return fail(new PixhookError('body_too_large', 'The body is larger than this receiver accepts.'));
    if (declared !== undefined && total > declared)
      return fail(new PixhookError('body_unreadable', 'The body is longer than its Content-Length.'));
    if (check !== undefined) check.update(chunk);
    if (first === undefined) first = chunk;
    else (chunks ??= [first]).push(chunk);
  });
  req.on('end', () => {
    if (finished) return;
    if (declared !== undefined && total !== declared)
      return finish(new PixhookError('body_unreadable', 'The body ended before its Content-Length.'));
    finished = true;
    done(undefined, chunks ? Buffer.concat(chunks, total) : (first ?? new Uint8Array(0)), check);
  });
  // A client that leaves mid-body destroys the request with ECONNRESET: 'error' hears it (Node ≥ 16 emits it after
  // the deprecated 'aborted', which needs no listener of its own).
  req.on('error', onError);
}

const alreadyParsed = 'The request body was already consumed by a body parser before pixhook could read the raw bytes.';

/** True when a parser already read the stream: the signed bytes are gone. */
function wasConsumed(req: NodeRequest): boolean {
  return req.readableEnded || req._body === true || (req.body !== undefined && !req.readable);
}

function keptBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  return undefined;
}

// The core answers every reason with one headers object per receiver; the written headers (with the
// body's Content-Length, so no chunked framing) are built once per object, not per request, in both
// forms: Node's own `writeHead` takes the flat [name, value, …] list (no walk over an object's keys),
// and a wrapped one (Next's Pages response, on-headers in morgan or compression), which may read a
// list as [name, value] pairs and scramble it, gets the object.
interface WrittenHeaders {
  body: string;
  headers: Record<string, string>;
  flat: string[];
}
const writtenHeaders = new WeakMap<Record<string, string>, WrittenHeaders>();

function headersOf(result: ReceiveResult): WrittenHeaders {
  const cached = writtenHeaders.get(result.headers);
  if (cached !== undefined && cached.body === result.body) return cached;
  const headers = { ...result.headers, 'content-length': String(Buffer.byteLength(result.body)) };
  const written = { body: result.body, headers, flat: Object.entries(headers).flat() };
  // A message of the answer's own (rare) makes a body of its own: keep the reason's usual one cached.
  if (cached === undefined) writtenHeaders.set(result.headers, written);
  return written;
}

// Node's own ServerResponse#writeHead, read without a static `node:` import: the kit loads on edge
// runtimes too, and Next's edge runtime throws on any use of `process.getBuiltinModule`.
const nodeWriteHead = loadNodeWriteHead();

function loadNodeWriteHead(): unknown {
  try {
    type Http = { ServerResponse?: { prototype: { writeHead: unknown } } };
    const host = globalThis as { process?: { getBuiltinModule?: (id: string) => Http | undefined } };
    return host.process?.getBuiltinModule?.('node:http')?.ServerResponse?.prototype.writeHead;
  } catch {
    return undefined;
  }
}

/** Writes the core's answer to a Node response, unchanged. A response that cannot be written is destroyed. */
function writeNodeResult(res: ServerResponse, result: ReceiveResult): void {
  try {
    const written = headersOf(result);
    res.writeHead(result.status, res.writeHead === nodeWriteHead ? written.flat : written.headers);
    res.end(result.body);
  } catch {
    res.destroy();
  }
}

interface NodeRequestOptions {
  /** The adapter's own advice when a body parser ran first. */
  fix?: string;
  /** The framework's own error logging, for a misconfiguration (the answer is written as always). */
  surface?: (error: PixhookError) => void;
  waitUntil?: (promise: Promise<unknown>) => void;
  /** False where a framework leaves a decoded string in `req.body` (Next's Pages parser): not the signed bytes. */
  stringBodyIsRaw?: boolean;
  /** The sender's address as the framework gives it (Express's `req.ip`). Default: the socket's peer. */
  remoteAddress?: (req: NodeRequest) => string | undefined;
}

/**
 * The whole Node translation the node, Express and Pages adapters share: read, handle, write. A
 * misconfiguration gets the contract's JSON answer like everything else, and its error also goes to
 * `surface`. `settled` hears once the answer is written, or of the error if something threw (a bug:
 * the core never throws), so an adapter can hand it to its framework. No promise on the hot path.
 */
export function serveNodeRequest(
  receiver: ReceiverInternals,
  req: NodeRequest,
  res: ServerResponse,
  options: NodeRequestOptions,
  settled: (error?: unknown) => void,
): void {
  // Anything but POST is answered 405 by the core before it looks at a body: read nothing.
  if (req.method !== 'POST') return handOver(receiver, req, res, options, settled, undefined);
  try {
    readNodeBody(receiver, req, options.fix ?? nodeFix, options.stringBodyIsRaw ?? true, (error, bytes, check) =>
      // A body that failed is handed over as a failing reader: the core answers it with its reason and the adapter's message.
      handOver(receiver, req, res, options, settled, error ? () => Promise.reject(error) : bytes, check),
    );
  } catch (error) {
    settled(error);
  }
}

/** The core's answer to the body, written: in this same turn when the core answered synchronously. */
function handOver(
  receiver: ReceiverInternals,
  req: NodeRequest,
  res: ServerResponse,
  options: NodeRequestOptions,
  settled: (error?: unknown) => void,
  body: ReceiveRequest['body'],
  check?: ChunkCheck,
): void {
  try {
    const request: ReceiveRequest = options.waitUntil
      ? { method: req.method, headers: req.headers, body, waitUntil: options.waitUntil }
      : { method: req.method, headers: req.headers, body };
    // Only the journal reads it: a receiver without one never asks the socket.
    if (receiver.journaled) {
      const remoteAddress = options.remoteAddress ? options.remoteAddress(req) : req.socket?.remoteAddress;
      if (remoteAddress !== undefined) request.remoteAddress = remoteAddress;
    }
    // The API Pix receiver decides on the connection itself: the target, the socket's peer, its TLS verdict.
    if (receiver.peer === true) {
      if (req.url !== undefined) request.url = req.url;
      request.peer = peerOf(req.socket);
    }
    const handled = receiver.handle(request, check);
    if (isPromise(handled)) handled.then((result) => written(res, options, settled, result)).catch(settled);
    else written(res, options, settled, handled);
  } catch (error) {
    settled(error);
  }
}

function written(res: ServerResponse, options: NodeRequestOptions, settled: (error?: unknown) => void, result: ReceiveResult): void {
  writeNodeResult(res, result);
  if (result.error) surfaceSafely(options.surface, result.error);
  settled();
}

/** `serveNodeRequest` as a promise that settles once the answer is written (Next's Pages router awaits it). */
export function handleNodeRequest(
  receiver: ReceiverInternals,
  req: NodeRequest,
  res: ServerResponse,
  options: NodeRequestOptions = {},
): Promise<void> {
  return new Promise((resolve, reject) =>
    serveNodeRequest(receiver, req, res, options, (error) => (error === undefined ? resolve() : reject(error))),
  );
}

/**
 * What a Node socket proves: its peer address (never a forwarded header) and, on a TLS socket Node
 * terminated, the client certificate as the TLS stack verified it. Read only for receivers that ask.
 */
export function peerOf(socket: Socket | undefined): PeerConnection {
  const peer: PeerConnection = {};
  if (socket === undefined || socket === null) return peer;
  if (socket.remoteAddress !== undefined) peer.address = socket.remoteAddress;
  const tls = socket as Partial<TLSSocket>;
  if (tls.encrypted !== true || typeof tls.getPeerCertificate !== 'function') return peer;
  const leaf = tls.getPeerCertificate(true) as DetailedPeerCertificate | Record<string, never>;
  const presented = leaf !== null && typeof leaf === 'object' && 'fingerprint256' in leaf && typeof leaf.fingerprint256 === 'string';
  const verdict: PeerTls = { authorized: tls.authorized === true, presented };
  if (tls.authorizationError) verdict.error = String(tls.authorizationError);
  if (presented) {
    const certificate = leaf as DetailedPeerCertificate;
    const cn = certificate.subject?.CN;
    if (typeof cn === 'string') verdict.subjectName = cn;
    if (typeof certificate.subjectaltname === 'string') verdict.altNames = certificate.subjectaltname;
    const chain: string[] = [];
    let at: DetailedPeerCertificate | undefined = certificate;
    // A self-signed root is its own issuer: the walk stops there.
    while (at !== undefined && typeof at.fingerprint256 === 'string' && chain.length < 10) {
      const print = at.fingerprint256.replace(/:/g, '').toLowerCase();
      if (chain.includes(print)) break;
      chain.push(print);
      at = at.issuerCertificate;
    }
    verdict.chain = chain;
  }
  peer.tls = verdict;
  return peer;
}

// ── Fetch apps (the console) on Node: the request as a fetch `Request`, the `Response` written back.

/** What a fetch app hears of a Node request beyond the `Request`: the socket's peer, and the mount path Express stripped. */
export interface NodeRequestInfo {
  remoteAddress?: string;
  basePath?: string;
}

const maxFormBytes = 64 * 1024;

/**
 * Serves a fetch-style app to a Node request, streaming its answer (server-sent events stay open until
 * the client leaves). A failure goes to `onError` and is answered 500 here, never handed to a framework's
 * `next`: its error page would show the stack.
 */
export function serveFetchApp(
  app: (request: Request, info: NodeRequestInfo) => Promise<Response>,
  req: NodeRequest,
  res: ServerResponse,
  onError: (error: unknown) => void,
): void {
  const baseUrl = (req as NodeRequest & { baseUrl?: unknown }).baseUrl;
  const info: NodeRequestInfo = {
    ...(req.socket?.remoteAddress !== undefined && { remoteAddress: req.socket.remoteAddress }),
    ...(typeof baseUrl === 'string' && { basePath: baseUrl }),
  };
  void fetchRequestOf(req)
    .then((request) => app(request, info))
    .then((response) => writeFetchResponse(response, res))
    .catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The server failed (see its log).');
      else res.destroy();
    });
}

/** A Node request as a fetch `Request`: the full URL (Express's mount path included) and a form body up to 64 KiB. */
async function fetchRequestOf(req: NodeRequest): Promise<Request> {
  // The URL is built on the Host only when it is a plain host: `x@127.0.0.1` would make a URL with
  // credentials, which `new Request` refuses. The header itself is kept for the app's own checks.
  const given = req.headers.host;
  const host = given !== undefined && isPlainHost(given) ? given : 'invalid.host';
  const raw = (req as NodeRequest & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const init: RequestInit = { method, headers };
  if (method === 'POST') init.body = await readSmallForm(req);
  const url = URL.canParse(`http://${host}${path}`) ? `http://${host}${path}` : `http://${host}/`;
  return new Request(url, init);
}

async function readSmallForm(req: NodeRequest): Promise<string> {
  // A framework's body parser may have read the form already (Express's urlencoded()).
  if (req.readableEnded && typeof req.body === 'object' && req.body !== null) {
    return new URLSearchParams(Object.entries(req.body as Record<string, unknown>).map(([k, v]) => [k, String(v)])).toString();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > maxFormBytes) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function writeFetchResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  res.flushHeaders();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    if (res.destroyed) break;
  }
  res.end();
}
