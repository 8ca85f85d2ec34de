import type * as NodeHttp from 'node:http';
import type * as NodeModule from 'node:module';
import type { Dispatcher } from 'undici';

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

interface Host {
  EdgeRuntime?: unknown;
  Bun?: unknown;
  Deno?: unknown;
  process?: { getBuiltinModule?: (name: string) => unknown };
}
const host = globalThis as Host;

function builtin(id: 'node:http' | 'node:https'): HttpModule | undefined {
  try {
    if (host.EdgeRuntime !== undefined) return undefined;
    return host.process?.getBuiltinModule?.(id) as HttpModule | undefined;
  } catch {
    return undefined;
  }
}

function tooLarge(): RangeError {
  return new RangeError(`the answer is over ${String(maxRecordBytes)} bytes`);
}

/**
 * node:http(s) (Bun and Deno, where undici is not loaded): the global keep-alive agent, the body read as
 * Buffers and decoded once.
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
            request.destroy(tooLarge());
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

/**
 * One GET through undici's lowest layer (`dispatch`): no request or response stream, no Headers object;
 * the handler is the only object made per call besides the promise and the chunks. The signal aborts it
 * wherever it is (queued, connecting, reading); a body over the limit aborts it with a RangeError.
 */
class GetHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private chunks: Buffer[] = [];
  private length = 0;
  private done = false;

  constructor(
    private readonly resolve: (answer: GetAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal,
  ) {}

  /** The signal's listener (a bound method: no closure per call). */
  readonly abort = (): void => {
    const reason = this.signal.reason as unknown;
    const error = reason instanceof Error ? reason : new DOMException('The fetch was aborted.', 'AbortError');
    if (this.controller !== undefined) this.controller.abort(error);
    else this.fail(error);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.done) controller.abort(new DOMException('The fetch was aborted.', 'AbortError'));
  }

  onResponseStart(_: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Only a 200's body is read; any other answer's is drained by undici.
    if (this.status !== 200) return;
    this.length += chunk.length;
    if (this.length > maxRecordBytes) return controller.abort(tooLarge());
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.settle();
    const { status, chunks } = this;
    if (status !== 200) return this.resolve({ status });
    this.resolve({ status, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') });
  }

  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.settle();
    this.reject(error);
  }

  private settle(): void {
    this.done = true;
    this.signal.removeEventListener('abort', this.abort);
  }
}

/** undici's Agent (one keep-alive pool per origin, no redirect followed), or undefined where it cannot load. */
function undiciAgent(): Dispatcher | undefined {
  try {
    // Node only: Bun and Deno keep node:http; edge runtimes `fetch`. Loaded with `require`, never a static
    // import, so a bundle for an edge runtime never pulls it in.
    if (host.EdgeRuntime !== undefined || host.Bun !== undefined || host.Deno !== undefined) return undefined;
    const module = host.process?.getBuiltinModule?.('node:module') as typeof NodeModule | undefined;
    if (module === undefined) return undefined;
    const undici = module.createRequire(import.meta.url)('undici') as typeof import('undici');
    // The pipeline's signal bounds each call (fetchTimeoutMs); these only bound a call made without one.
    return new undici.Agent({ headersTimeout: 30_000, bodyTimeout: 30_000 });
  } catch {
    return undefined;
  }
}

/** Where the path starts in an absolute URL (`https://host:port/path?query`). */
function pathAt(url: string): number {
  const at = url.indexOf('/', url.indexOf('//') + 2);
  return at === -1 ? url.length : at;
}

function dispatchGet(agent: Dispatcher, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<GetAnswer> {
  return new Promise<GetAnswer>((resolve, reject) => {
    const handler = new GetHandler(resolve, reject, signal);
    if (signal.aborted) return handler.abort();
    signal.addEventListener('abort', handler.abort);
    try {
      const at = pathAt(url);
      agent.dispatch({ origin: url.slice(0, at), path: at === url.length ? '/' : url.slice(at), method: 'GET', headers }, handler);
    } catch (error) {
      handler.fail(error);
    }
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
  if (text.length > maxRecordBytes) throw tooLarge();
  return { status: 200, text };
};

const http = builtin('node:http');
const https = builtin('node:https');

/** node:http(s) where the runtime has it (Bun, Deno), undefined elsewhere. */
export const nodeHttpGet: HttpGet | undefined = http !== undefined && https !== undefined ? nodeGet(http, https) : undefined;

// undici is loaded by the first source that fetches (its construction calls `prepareHttpGet`), not by
// importing pixhook: loading it costs ~0.1 s that a receiver without a confirmation GET never needs.
let agent: Dispatcher | null | undefined;

/** Loads the runtime's GET client now (undici on Node) rather than on the first confirmation. */
export function prepareHttpGet(): void {
  agent ??= undiciAgent() ?? null;
}

/**
 * The runtime's GET. On Node, undici's `dispatch`: about half the CPU of a node:http request per call
 * (no ClientRequest, IncomingMessage or socket listeners per call; docs/reference/benchmarks.md). node:http
 * on Bun and Deno, `fetch` on edge runtimes.
 */
export const httpGet: HttpGet = (url, headers, signal) => {
  prepareHttpGet();
  return agent !== null ? dispatchGet(agent!, url, headers, signal) : (nodeHttpGet ?? webGet)(url, headers, signal);
};
