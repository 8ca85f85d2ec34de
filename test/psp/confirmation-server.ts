// A small local confirmation API for the PSP sources' tests: it answers Mercado Pago's GET /v1/payments/{id},
// Asaas's GET /v3/payments/{id} and Pagar.me's GET /core/v5/charges/{id} from records a test sets, checks
// the credential each PSP documents, and fails on demand (a 500, a hang past the fetch bound) to prove 503.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ConfirmationServer {
  url: string;
  /** Sets the record a GET of `path` returns (`/v1/payments/123`). */
  set(path: string, record: unknown): void;
  /** The next `count` GETs answer `status` (or hang when `hang`). */
  fail(count: number, how: { status: number } | 'hang'): void;
  /** Every GET path seen, with its credential header. */
  readonly seen: { path: string; credential: string | undefined }[];
  close(): Promise<void>;
}

export async function startConfirmationServer(credentials: { header: string; value: string }): Promise<ConfirmationServer> {
  const records = new Map<string, unknown>();
  const seen: ConfirmationServer['seen'] = [];
  let failures: { count: number; how: { status: number } | 'hang' } | undefined;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    const credential = req.headers[credentials.header] as string | undefined;
    seen.push({ path, credential });
    if (failures !== undefined && failures.count > 0) {
      failures.count--;
      if (failures.how === 'hang') return; // never answered: the receiver's fetch bound ends it
      res.writeHead(failures.how.status, { 'content-type': 'application/json' }).end('{"error":"injected"}');
      return;
    }
    if (credential !== credentials.value)
      return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    const record = records.get(path);
    if (record === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    set: (path, record) => void records.set(path, record),
    fail: (count, how) => void (failures = { count, how }),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
