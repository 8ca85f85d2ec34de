import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { UsageError } from './cli-args.js';

interface MtlsFiles {
  cert?: string | undefined;
  key?: string | undefined;
  ca?: string | undefined;
}

/** Reads `--cert`/`--key`/`--cacert`: a client certificate needs its key and the key its certificate; `--cacert` stands alone. */
export function readMtlsFiles(files: MtlsFiles): { cert?: string; key?: string; ca?: string } | undefined {
  if ((files.cert === undefined) !== (files.key === undefined))
    throw new UsageError('--cert and --key go together: the client certificate and its private key (PEM)');
  if (files.cert === undefined && files.ca === undefined) return undefined;
  const read = (flag: string, path: string): string => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw new UsageError(`${flag}: ${JSON.stringify(path)} could not be read (${String(code ?? 'error')})`);
    }
    // The file's content is never echoed: it may be a private key.
    if (!text.includes('-----BEGIN ')) throw new UsageError(`${flag}: ${JSON.stringify(path)} holds no PEM block`);
    return text;
  };
  return {
    ...(files.cert !== undefined && { cert: read('--cert', files.cert) }),
    ...(files.key !== undefined && { key: read('--key', files.key) }),
    ...(files.ca !== undefined && { ca: read('--cacert', files.ca) }),
  };
}

/**
 * A `fetch` for `deliver` over `node:https` that presents a client certificate (global fetch cannot):
 * only what `deliver` uses (POST, headers, a byte body, a signal) is supported.
 */
export function mtlsFetch(tls: { cert?: string; key?: string; ca?: string }): { fetch: typeof globalThis.fetch; close: () => void } {
  const agent = new Agent({ ...tls, keepAlive: false });
  const send = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      const req = request(
        String(input),
        { method: init.method ?? 'GET', headers, agent, ...(init.signal && { signal: init.signal }) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            // A Response with a 204/205/304 status takes no body.
            const body = status === 204 || status === 205 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status }));
          });
        },
      );
      // deliver reads `error.cause` for the network reason, as global fetch wraps it.
      req.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
      req.end(init.body instanceof Uint8Array ? init.body : typeof init.body === 'string' ? init.body : undefined);
    });
  return { fetch: send as typeof globalThis.fetch, close: () => agent.destroy() };
}
