import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from '../../adapters/node/index.js';
import type { Receiver } from '../../src/index.js';
import type { PixhookConsole } from '../../src/console/index.js';

/** `pixhook dev`'s one port on 127.0.0.1: the receiver (node:http adapter) at `webhookPath`, the console everywhere else. */
export async function serveDev(input: {
  receiver: Receiver;
  console: PixhookConsole;
  port: number;
  webhookPath: string;
}): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const receive = createNodeHandler(input.receiver);
  const server: Server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === input.webhookPath) receive(req, res);
    else input.console.node(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(input.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
