import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceiverHealth } from '../../src/index.js';

/** Anything with `health()`: a receiver, or the parts a command checks itself. */
export interface HealthSource {
  health(): Promise<ReceiverHealth>;
}

/** `GET /healthz` (or HEAD), whatever the query string. */
function isHealthRequest(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  return (req.url ?? '').split('?')[0] === '/healthz';
}

/** Answers `GET /healthz`: 200 when every check is ok, else 503; the body is `health()`'s JSON. Never throws. */
function answerHealth(source: HealthSource, req: IncomingMessage, res: ServerResponse): void {
  source.health().then(
    (health) => send(res, health.ok ? 200 : 503, health, req.method === 'HEAD'),
    () => send(res, 503, { ok: false, checks: {} }, req.method === 'HEAD'),
  );
}

function send(res: ServerResponse, status: number, health: ReceiverHealth, headOnly: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(health);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(headOnly ? undefined : body);
}

/** Wraps a request handler so `GET /healthz` answers `source.health()` before it. */
export function withHealthRoute(
  source: HealthSource,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => (isHealthRequest(req) ? answerHealth(source, req, res) : handler(req, res));
}

/** A server answering only `GET /healthz` (404 elsewhere), for a command that serves nothing else (`pixhook worker`). */
export async function serveHealth(source: HealthSource, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(
    withHealthRoute(source, (_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}')),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/healthz`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
