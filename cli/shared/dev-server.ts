import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from '../../adapters/node/index.js';
import type { Receiver } from '../../src/index.js';
import type { PixhookConsole } from '../../src/console/index.js';
import { devControlPaths } from './dev-controls.js';

const controlPaths = new Set<string>(Object.values(devControlPaths));

/**
 * `pixhook dev`'s one port on 127.0.0.1: the receiver (node:http adapter, or `receive` when given:
 * the forwarder to the developer's app) at each of `webhookPaths`, the console everywhere else.
 */
export async function serveDev(input: {
  receiver: Receiver;
  console: PixhookConsole;
  port: number;
  webhookPaths: readonly string[];
  receive?: (req: IncomingMessage, res: ServerResponse) => void;
  /** The CLI's JSON controls (`pixhook trigger`, `pixhook resend --dev`), at `devControlPaths`. */
  controls?: (req: IncomingMessage, res: ServerResponse) => void;
}): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const receive = input.receive ?? createNodeHandler(input.receiver);
  const server: Server = createServer((req, res) => {
    const path = pathOf(req.url);
    if (input.webhookPaths.includes(path)) receive(req, res);
    else if (input.controls !== undefined && controlPaths.has(path)) input.controls(req, res);
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

/** The path of a request target; a target that does not parse is no webhook path (the console answers it). */
function pathOf(target: string | undefined): string {
  try {
    return new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}
