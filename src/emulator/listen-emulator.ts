import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An emulator's HTTP server, listening: its base URL and port, and a close that ends every connection. */
interface ListeningEmulator {
  /** e.g. `http://127.0.0.1:41234` (an IPv6 host in brackets). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `handle` on `host:port` (0: a free port) over HTTP: the gateway and PSP profiles' server. */
export async function listenEmulator(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  host: string,
  port: number,
): Promise<ListeningEmulator> {
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
