// One API Pix call over real HTTP or HTTPS: from a chosen loopback address (127.0.0.2 is outside a proxy
// list of 127.0.0.1 on Linux) and, over TLS, with a chosen client certificate or none.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { sendBody, type ContractResponse } from '../contract/contract-target.js';

export interface CallRequest {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Appended to the target's mount path: `/pix`, `/rec/`, `?secret=…`. */
  path?: string;
  /** The source address of the connection. Default 127.0.0.1. */
  from?: string;
}

export interface ClientTls {
  /** The CA the server's certificate chains to. */
  ca: string;
  /** The client's certificate and key; none presented when absent. */
  cert?: string;
  key?: string;
}

/**
 * Sends like the gateway contract's `sendHttp` (bodies in 64 KiB slices, one per turn, stopping once an
 * answer starts; `Expect: 100-continue` over 1 MiB, then, over plain HTTP, written on the descriptor so a
 * reset cannot throw the answer away), so a 413 answered early is still read. A connection
 * that closes without an answer (a handshake refused) rejects once the socket has closed.
 */
export function sendCall(url: string, request: CallRequest, tls?: ClientTls): Promise<ContractResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const announce = body !== undefined && body.length > 1024 * 1024;
    const headers = {
      ...request.headers,
      connection: 'close',
      ...(body && { 'content-length': String(body.length) }),
      ...(announce && { expect: '100-continue' }),
    };
    const onAnswer = (res: IncomingMessage): void => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks).toString('utf8') });
        if (!req.writableEnded) req.destroy();
      });
      res.on('error', reject);
    };
    const common = { method: request.method, agent: false, headers, localAddress: request.from ?? '127.0.0.1' };
    const req: ClientRequest =
      tls === undefined
        ? httpRequest(url, common, onAnswer)
        : httpsRequest(
            url,
            { ...common, servername: 'localhost', ca: tls.ca, ...(tls.cert !== undefined && { cert: tls.cert, key: tls.key }) },
            onAnswer,
          );
    sendBody(req, body, announce, () => answered, reject);
  });
}
