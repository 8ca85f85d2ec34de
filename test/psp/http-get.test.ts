// The confirmation GET: undici's dispatch on Node, node:http's keep-alive pool on Bun and Deno, `fetch`
// elsewhere; each reads a 200's body once, answer 404 and every other status as they came, never follow a redirect, and refuse an
// answer over 1 MiB. fetchRecord turns each into the record, not_found or unavailable (503).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchRecord } from '../../src/sources/shared/fetch-record.js';
import { httpGet, maxRecordBytes, nodeHttpGet, webGet } from '../../src/sources/shared/http-get.js';

let server: Server;
let base: string;
const sockets = new Set<string>();
const seen: { url: string; accept: string | undefined; token: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    sockets.add(`${String(req.socket.remotePort)}`);
    seen.push({ url: req.url ?? '', accept: req.headers.accept, token: req.headers['access_token'] as string | undefined });
    const json = { 'content-type': 'application/json' };
    switch ((req.url ?? '').split('?')[0]) {
      case '/ok':
        return void res.writeHead(200, json).end('{"id":"pay_1","status":"RECEIVED"}');
      case '/chunked':
        res.writeHead(200, json);
        res.write('{"id":"pay_2",');
        return void setTimeout(() => res.end('"status":"RECEIVED"}'), 5);
      case '/missing':
        return void res.writeHead(404, json).end('{"error":"not_found"}');
      case '/moved':
        return void res.writeHead(302, { location: '/ok' }).end();
      case '/busy':
        return void res.writeHead(503, json).end('{}');
      case '/text':
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
      case '/array':
        return void res.writeHead(200, json).end('[1,2]');
      case '/huge':
        return void res.writeHead(200, json).end(`{"pad":"${'x'.repeat(maxRecordBytes)}"}`);
      case '/hang':
        return; // never answered: the signal ends it
      default:
        return void res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  seen.length = 0;
  vi.restoreAllMocks();
});

const signal = () => AbortSignal.timeout(2_000);

describe.each([
  ['undici', httpGet],
  ['node:http', nodeHttpGet!],
  ['fetch', webGet],
] as const)('fetchRecord over %s', (_, get) => {
  it('reads a 200 object (whole or in chunks), with the accept and credential headers', async () => {
    expect(await fetchRecord(`${base}/ok`, { access_token: 'k' }, signal(), get)).toEqual({
      status: 'found',
      record: { id: 'pay_1', status: 'RECEIVED' },
    });
    expect(await fetchRecord(`${base}/chunked`, {}, signal(), get)).toEqual({
      status: 'found',
      record: { id: 'pay_2', status: 'RECEIVED' },
    });
    expect(seen[0]).toEqual({ url: '/ok', accept: 'application/json', token: 'k' });
  });

  it('a 404 is not_found; a redirect, a 503, text, an array or an answer over 1 MiB is unavailable', async () => {
    expect(await fetchRecord(`${base}/missing`, {}, signal(), get)).toEqual({ status: 'not_found', hint: 'GET /missing answered 404' });
    expect(await fetchRecord(`${base}/moved`, {}, signal(), get)).toEqual({ status: 'unavailable', hint: 'GET /moved answered 302' });
    expect(seen.map((s) => s.url)).toEqual(['/missing', '/moved']); // the redirect was not followed
    expect(await fetchRecord(`${base}/busy`, {}, signal(), get)).toEqual({ status: 'unavailable', hint: 'GET /busy answered 503' });
    expect(await fetchRecord(`${base}/text`, {}, signal(), get)).toEqual({
      status: 'unavailable',
      hint: 'GET /text answered 200 without JSON',
    });
    expect(await fetchRecord(`${base}/array`, {}, signal(), get)).toEqual({
      status: 'unavailable',
      hint: 'GET /array answered 200 without an object',
    });
    expect(await fetchRecord(`${base}/huge`, {}, signal(), get)).toEqual({ status: 'unavailable', hint: 'GET /huge failed (RangeError)' });
  });

  it('a hang past the signal is a timeout; a closed port is unavailable; the query never reaches the hint', async () => {
    expect(await fetchRecord(`${base}/hang?key=secret`, {}, AbortSignal.timeout(50), get)).toEqual({
      status: 'unavailable',
      hint: 'GET /hang failed (timeout)',
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await fetchRecord(`http://127.0.0.1:${String(port)}/v1/payments/1`, {}, signal(), get);
    expect(refused.status).toBe('unavailable');
    expect(refused).toMatchObject({ hint: expect.stringMatching(/^GET \/v1\/payments\/1 failed \((Error|TypeError)\)$/) as string });
  });
});

describe('httpGet', () => {
  it('reuses its keep-alive connections for calls made one after another (no connection per request)', async () => {
    sockets.clear();
    for (let i = 0; i < 20; i++) expect((await httpGet(`${base}/ok`, {}, signal())).status).toBe(200);
    // undici may open a second connection while the first is being freed: never one per call.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('an abort before the request is written settles it at once, and the request is never sent', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(httpGet(`${base}/ok?early`, {}, aborted.signal)).rejects.toThrow();
    const queued = new AbortController();
    const pending = httpGet(`http://localhost:${new URL(base).port}/ok?queued`, {}, queued.signal);
    queued.abort(); // before undici has connected a socket for this origin
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.map((s) => s.url)).not.toContain('/ok?early');
    expect(seen.map((s) => s.url)).not.toContain('/ok?queued');
  });

  it('is undici under Node (not fetch)', async () => {
    const spy = vi.spyOn(globalThis, 'fetch');
    // The module object nodeHttpGet calls into (node:http's own exports, not the ESM namespace).
    const request = vi.spyOn(process.getBuiltinModule('node:http'), 'request');
    expect(await httpGet(`${base}/ok`, {}, signal())).toEqual({ status: 200, text: '{"id":"pay_1","status":"RECEIVED"}' });
    expect(spy).not.toHaveBeenCalled();
    expect(request).not.toHaveBeenCalled();
  });
});
