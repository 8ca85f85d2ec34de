import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Receiver } from '../../src/index.js';

export interface ContractRequest {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
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
    send: (request) => sendHttp(`http://127.0.0.1:${port}${path}`, request),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Real HTTP with node:http, which (unlike fetch) still reads an answer sent before the body was read. */
export function sendHttp(url: string, request: ContractRequest): Promise<ContractResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: request.method, agent: false, headers: { ...request.headers, connection: 'close' } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      // The server may close while a large body is still being written; its answer is what counts.
      if (!answered) setTimeout(() => (answered ? undefined : reject(error)), 200);
    });
    if (request.body) req.end(request.body);
    else req.end();
  });
}
