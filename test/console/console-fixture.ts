import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createConsole } from '../../src/console/index.js';
import {
  createReceiver,
  memoryJournal,
  memoryPaymentBook,
  memoryQuarantine,
  type JournalEntry,
  type ReceiveResult,
} from '../../src/index.js';
import { journalId } from '../../src/journal/journal-id.js';
import { buildPayload, signedRequest } from '../../src/testing/index.js';

export const secret = 'whsec_console_test_secret_0123456789';

/**
 * A real Express app: the receiver at /webhook, the console mounted at /console. Each delivery the
 * test sends is journaled from its answer (the receiver's own journal writing is another branch's work).
 */
export async function startConsoleApp(options: { token?: string; host?: string } = {}) {
  const journal = memoryJournal({ max: 1000 });
  const book = memoryPaymentBook();
  const quarantine = memoryQuarantine();
  const receiver = createReceiver({ secret, book, quarantine });
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
  ): Promise<{ answer: ReceiveResult['status']; entry: JournalEntry }> {
    const body = buildPayload(name, payload);
    const signed = await signedRequest(body, secret);
    const response = await fetch(`${origin}/webhook`, { method: 'POST', headers: signed.headers, body: signed.body });
    const answer = (await response.json()) as { reason?: string };
    const data = (body as { data?: { id?: string; amountInCents?: number } }).data ?? (body as { id?: string; amountInCents?: number });
    const entry: JournalEntry = {
      id: journalId(),
      at: new Date().toISOString(),
      channel: 'postback',
      verified: true,
      status: response.status,
      ...(answer.reason !== undefined && { reason: answer.reason as JournalEntry['reason'] }),
      event: name,
      ...(data.id !== undefined && { resourceId: data.id }),
      ...(data.amountInCents !== undefined && { amountInCents: data.amountInCents }),
      bodyBytes: signed.body.length,
      body: signed.body,
      signature: `${signed.headers['x-signature']?.slice(0, 11)}…`,
      attempts: answer.reason === undefined ? [{ attempt: 1, at: new Date().toISOString(), durationMs: 1.5, outcome: 'ok' }] : [],
    };
    await journal.add(entry);
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
