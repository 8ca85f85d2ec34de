import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createConsole } from '../../src/console/index.js';
import { createReceiver, memoryJournal, memoryPaymentBook, memoryQuarantine, type JournalEntry } from '../../src/index.js';
import { buildPayload, signedRequest } from '../../src/testing/index.js';

export const secret = 'whsec_console_test_secret_0123456789';

/**
 * A real Express app: the receiver (with the journal) at /webhook, the console mounted at /console.
 */
export async function startConsoleApp(options: { token?: string; host?: string } = {}) {
  const journal = memoryJournal({ max: 1000 });
  const book = memoryPaymentBook();
  const quarantine = memoryQuarantine();
  const receiver = createReceiver({ secret, book, quarantine, journal });
  const runs = new Map<string, number>();
  receiver.onAny((event) => {
    const id = event.kind === 'transaction' ? event.transaction.id : event.transfer.id;
    runs.set(`${event.name}:${id}`, (runs.get(`${event.name}:${id}`) ?? 0) + 1);
  });
  const consoleApp = createConsole({ journal, book, quarantine, receiver, ...(options.token !== undefined && { token: options.token }) });
  const app = express();
  app.post('/webhook', createExpressMiddleware(receiver));
  app.use('/console', consoleApp.node);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  async function deliver(
    name: Parameters<typeof buildPayload>[0],
    payload: Parameters<typeof buildPayload>[1],
  ): Promise<{ answer: number; entry: JournalEntry }> {
    const body = buildPayload(name, payload);
    const signed = await signedRequest(body, secret);
    const response = await fetch(`${origin}/webhook`, { method: 'POST', headers: signed.headers, body: signed.body });
    await response.arrayBuffer();
    const id = ((body as { data?: { id?: string } }).data ?? (body as { id?: string })).id;
    // The receiver writes its journal off the hot path: wait for this delivery's entry.
    let entry: JournalEntry | undefined;
    for (let tries = 0; entry === undefined && tries < 200; tries++) {
      entry = (await journal.list({ resource: id!, event: name })).find((e) => e.body === signed.body);
      if (entry === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (entry === undefined) throw new Error(`no journal entry for ${name} ${id}`);
    return { answer: response.status, entry };
  }

  return {
    origin,
    base: `${origin}/console`,
    journal,
    book,
    quarantine,
    receiver,
    runs,
    deliver,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
