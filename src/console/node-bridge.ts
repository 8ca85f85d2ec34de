import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainHost } from '../shared/loopback.js';

const maxFormBytes = 64 * 1024;

/** A node request as a fetch `Request` (the full URL, Express's mount path included; a form body up to 64 KiB). */
export async function nodeToRequest(req: IncomingMessage): Promise<Request> {
  // The URL is built on the Host only when it is a plain host: `x@127.0.0.1` would make a URL with
  // credentials, which `new Request` refuses. The header itself is kept for the console's own checks.
  const given = req.headers.host;
  const host = given !== undefined && isPlainHost(given) ? given : 'invalid.host';
  const raw = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const init: RequestInit = { method, headers };
  if (method === 'POST') init.body = await readSmallBody(req);
  const url = URL.canParse(`http://${host}${path}`) ? `http://${host}${path}` : `http://${host}/`;
  return new Request(url, init);
}

async function readSmallBody(req: IncomingMessage): Promise<string> {
  // A framework's body parser may have read the form already (Express's urlencoded()).
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.readableEnded && typeof parsed === 'object' && parsed !== null) {
    return new URLSearchParams(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, String(v)])).toString();
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

/** Writes a fetch `Response` to node, streaming its body (server-sent events stay open until the browser leaves). */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
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
