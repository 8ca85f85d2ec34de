import type * as NodeHttp from 'node:http';

/** A GET's answer: the status and, for a 200, the body's text (read whole, within `maxBytes`). */
export interface GetAnswer {
  readonly status: number;
  readonly text?: string;
}

/** `GET url` with `headers`, bounded by `signal`; rejects on a network error, an abort or a body over the limit. */
export type HttpGet = (url: string, headers: Record<string, string>, signal: AbortSignal) => Promise<GetAnswer>;

/** The largest confirmation record read (a Mercado Pago payment is a few KB). */
export const maxRecordBytes = 1024 * 1024;

type HttpModule = Pick<typeof NodeHttp, 'request'>;

function builtin(id: 'node:http' | 'node:https'): HttpModule | undefined {
  try {
    const host = globalThis as { EdgeRuntime?: unknown; process?: { getBuiltinModule?: (name: string) => unknown } };
    if (host.EdgeRuntime !== undefined) return undefined;
    return host.process?.getBuiltinModule?.(id) as HttpModule | undefined;
  } catch {
    return undefined;
  }
}

/**
 * node:http(s) where the runtime has it: the global keep-alive agent (one pool per process, no client
 * objects made per request), the body read as Buffers and decoded once. undici's `fetch` costs about three
 * times the CPU per call (WHATWG streams, Headers, Response); edge runtimes keep `fetch` (`webGet`).
 */
function nodeGet(http: HttpModule, https: HttpModule): HttpGet {
  return (url, headers, signal) =>
    new Promise<GetAnswer>((resolve, reject) => {
      const client = url.startsWith('https:') ? https : http;
      const request = client.request(url, { method: 'GET', headers, signal }, (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          resolve({ status });
          return;
        }
        const chunks: Buffer[] = [];
        let length = 0;
        response.on('data', (chunk: Buffer) => {
          length += chunk.length;
          if (length > maxRecordBytes) {
            request.destroy(new RangeError(`the answer is over ${String(maxRecordBytes)} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end();
    });
}

/** `fetch` (edge runtimes, or a runtime without node:http): no redirect followed, the body read once. */
export const webGet: HttpGet = async (url, headers, signal) => {
  const response = await fetch(url, { method: 'GET', headers, signal, redirect: 'manual' });
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  }
  const text = await response.text();
  if (text.length > maxRecordBytes) throw new RangeError(`the answer is over ${String(maxRecordBytes)} bytes`);
  return { status: 200, text };
};

const http = builtin('node:http');
const https = builtin('node:https');

/** The runtime's GET: node:http(s) where present, else `fetch`. */
export const httpGet: HttpGet = http !== undefined && https !== undefined ? nodeGet(http, https) : webGet;
