import { writeSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Receiver } from '../../src/index.js';

export interface ContractRequest {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Appended to the target's URL (the API Pix profile's `/pix?secret=…`). */
  path?: string;
}

export interface ContractResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One way of reaching a receiver: the core itself, or an adapter over real HTTP. */
export interface ContractTarget {
  send(request: ContractRequest): Promise<ContractResponse>;
  close(): Promise<void>;
}

export type TargetFactory = (receiver: Receiver) => Promise<ContractTarget>;

/** Listens on a free loopback port and sends real HTTP requests to `path`. */
export async function serverTarget(server: Server, path: string): Promise<ContractTarget> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    send: (request) => sendHttp(`http://127.0.0.1:${port}${path}${request.path ?? ''}`, request),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Real HTTP with node:http, which (unlike fetch) still reads an answer sent before the body was read.
 * A body over 1 MiB is announced with `Expect: 100-continue` and sent only after the server's
 * `100 Continue`, unless its answer came with it. Bun sends its 100 at once, then answers 413 on the
 * declared length and closes with the body unread: its kernel resets the connection. Node destroys a
 * socket whose write fails, so a slice written after that reset (EPIPE) threw away the 413 waiting in
 * the receive queue (1 run in 4 on a loaded CI). `sendBody` therefore writes an announced body on the
 * socket's descriptor itself: a failed write only stops the sending, and the answer the kernel still
 * holds is read as usual. A connection error before any answer fails the send once the socket has
 * closed (no timer decides).
 */
export function sendHttp(url: string, request: ContractRequest): Promise<ContractResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const announce = body !== undefined && body.length > 1024 * 1024;
    // A declared length as `end(body)` would set it (slices alone would go chunked); a case's own stays.
    const declared = Object.keys(request.headers).some((name) => name.toLowerCase() === 'content-length');
    const headers = {
      ...request.headers,
      connection: 'close',
      ...(body && !declared && { 'content-length': String(body.length) }),
      ...(announce && { expect: '100-continue' }),
    };
    const req = httpRequest(url, { method: request.method, agent: false, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
        if (!req.writableEnded) req.destroy();
      });
      res.on('error', reject);
    });
    sendBody(req, body, announce, () => answered, reject);
  });
}

/**
 * Writes `body` on `req` and rejects when the connection closes without an answer. One slice at a time,
 * the next only a turn later, so that the poll phase in between reads whatever the server answered and
 * the sending stops there. An announced body waits for the server's 100 and then goes out on the TCP
 * socket's descriptor (`writeOnDescriptor`): a reset that arrives between two slices makes that write
 * fail without destroying the socket, whose reading side still delivers the answer sent before the
 * reset (Linux keeps received bytes readable after a RST). Over TLS, or without a descriptor, the
 * stream's own writes are used.
 */
export function sendBody(
  req: ClientRequest,
  body: Uint8Array | undefined,
  announce: boolean,
  answered: () => boolean,
  reject: (error: Error) => void,
): void {
  let failure: Error | undefined;
  req.on('error', (error) => {
    failure ??= error;
  });
  req.on('close', () => {
    if (!answered()) reject(failure ?? new Error('the connection closed without an answer'));
  });
  if (!body) return void req.end();
  let offset = 0;
  const pump = (): void => {
    if (answered() || req.destroyed) return;
    if (offset >= body.length) return void req.end();
    const end = Math.min(offset + 64 * 1024, body.length);
    const slice = body.subarray(offset, end);
    offset = end;
    req.write(slice, () => setImmediate(pump));
  };
  if (!announce) return pump();
  // The answer parsed from the same bytes as the 100 is seen before this next turn.
  req.once('continue', () =>
    setImmediate(() => {
      const fd = descriptorOf(req.socket);
      if (fd === undefined) return pump();
      writeOnDescriptor(
        fd,
        body,
        () => answered() || req.destroyed,
        () => req.end(),
      );
    }),
  );
}

/** The descriptor of a plain TCP socket (its headers already written), or undefined over TLS. */
function descriptorOf(socket: Socket | null): number | undefined {
  if (socket === null || socket instanceof TLSSocket) return undefined;
  const fd = (socket as Socket & { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * Writes `body` on a non-blocking socket's descriptor, one slice a turn, until `stop()` or the end
 * (then `ended()`). A full send buffer (EAGAIN) waits a millisecond; any other error (EPIPE,
 * ECONNRESET: the server answered and closed) ends the sending and leaves the socket to read the answer.
 */
function writeOnDescriptor(fd: number, body: Uint8Array, stop: () => boolean, ended: () => void): void {
  let offset = 0;
  const next = (): void => {
    if (stop()) return;
    if (offset >= body.length) return ended();
    try {
      offset += writeSync(fd, body, offset, Math.min(64 * 1024, body.length - offset));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return void setTimeout(next, 1);
      return;
    }
    setImmediate(next);
  };
  next();
}
