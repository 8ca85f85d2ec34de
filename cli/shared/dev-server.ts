import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryJournal, Receiver, ReceiveResult } from '../../src/index.js';
import type { PixhookConsole } from '../../src/console/index.js';
import { journalId } from '../../src/journal/journal-id.js';
import { isSignatureReason } from '../../src/shared/reasons.js';

const maxBodyBytes = 1024 * 1024;

/**
 * `pixhook dev`'s one port: the receiver at `webhookPath`, the console everywhere else. Each delivery
 * is journaled here with its answer (until the receiver writes the journal itself).
 */
export async function serveDev(input: {
  receiver: Receiver;
  console: PixhookConsole;
  journal: DeliveryJournal;
  port: number;
  webhookPath: string;
  onJournalError: (error: unknown) => void;
}): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const { receiver, journal, webhookPath } = input;
  const server: Server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== webhookPath) {
      input.console.node(req, res);
      return;
    }
    void (async () => {
      const at = new Date();
      const started = performance.now();
      const bytes = await readBody(req);
      const result = await receiver.receive({ method: req.method ?? 'POST', headers: req.headers, body: bytes ?? new Uint8Array(0) });
      res.writeHead(result.status, result.headers).end(result.body);
      journal.add(entryOf(result, req, bytes, at, performance.now() - started)).catch(input.onJournalError);
    })().catch((error: unknown) => {
      input.onJournalError(error);
      if (!res.headersSent) res.writeHead(500).end();
    });
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

async function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function entryOf(result: ReceiveResult, req: IncomingMessage, bytes: Uint8Array | undefined, at: Date, ms: number) {
  const event = result.event;
  const verified =
    event !== undefined ||
    (result.reason !== undefined && !isSignatureReason(result.reason) && result.status !== 413 && result.status !== 405);
  const resource = event?.kind === 'transaction' ? event.transaction : event?.kind === 'transfer' ? event.transfer : undefined;
  const signature = req.headers['x-signature'];
  const handled = result.status === 200 && result.reason === undefined && event !== undefined && event.kind !== 'unknown';
  return {
    id: journalId(at.getTime()),
    at: at.toISOString(),
    ...(req.socket.remoteAddress !== undefined && { remoteAddress: req.socket.remoteAddress }),
    channel: event !== undefined && event.kind !== 'unknown' && event.scope === 'user' ? ('user' as const) : ('postback' as const),
    verified,
    status: result.status,
    ...(result.reason !== undefined && { reason: result.reason }),
    ...(event !== undefined && { event: event.name }),
    ...(result.key !== undefined && { key: result.key }),
    ...(resource !== undefined && { resourceId: resource.id, amountInCents: resource.amountInCents }),
    ...(event?.deliveryId !== undefined && { deliveryId: event.deliveryId }),
    bodyBytes: bytes?.byteLength ?? 0,
    ...(verified && bytes !== undefined && { body: new TextDecoder().decode(bytes) }),
    ...(typeof signature === 'string' && { signature: `${signature.slice(0, 11)}…` }),
    ...(event !== undefined && event.kind !== 'unknown' && event.warnings.length > 0 && { warnings: event.warnings.map((w) => w.path) }),
    attempts: handled ? [{ attempt: 1, at: at.toISOString(), durationMs: ms, outcome: 'ok' as const }] : [],
  };
}
