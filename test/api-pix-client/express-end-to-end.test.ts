import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createMtlsServer } from '../../adapters/node/index.js';
import { createApiPixReceiver, type PixReceivedEvent, type PixRefundUpdatedEvent } from '../../src/api-pix/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { memoryDedupeStore, memoryPaymentBook } from '../../src/index.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';

// The emulated PSP ↔ createApiPixReceiver in Express, over real mTLS both ways: the PSP's client certificate is
// checked in the handshake and by the receiver, and the receiver serves the run's server certificate.
let emulator: ApiPixEmulator | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await emulator?.close();
  emulator = undefined;
});

async function setup() {
  emulator = await startApiPix({ groupWindowMs: 50 });
  const pem = (path: string) => readFileSync(path, 'utf8');
  const book = memoryPaymentBook();
  const received: PixReceivedEvent[] = [];
  const refunds: PixRefundUpdatedEvent[] = [];
  const receiver = createApiPixReceiver({
    auth: { mtls: { ca: pem(emulator.certificates.ca), names: ['pixhook-emulator-client'] } },
    keys: [emulator.credentials.pixKey],
    store: memoryDedupeStore(),
    book,
  })
    .on('pix_received', (event) => void received.push(event))
    .on('pix_refund_updated', (event) => void refunds.push(event));
  const app = express();
  app.use('/webhooks/bank', createExpressMiddleware(receiver));
  const server = createMtlsServer(
    { cert: pem(emulator.certificates.serverCert), key: pem(emulator.certificates.serverKey), ca: pem(emulator.certificates.ca) },
    app,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const client = clientFor(emulator, { book });
  closers.push(async () => client.close());
  await client.configureWebhook(`https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/bank`);
  return { emulator, client, book, received, refunds };
}

describe('emulator ↔ createApiPixReceiver in Express over mTLS', () => {
  it('create a cob, pay it: the handler runs once, with the amount in cents', async () => {
    const { emulator, client, received } = await setup();
    await client.createCharge({ txid: txid(1), amountInCents: 11000 });
    const paid = emulator.pay(txid(1));
    await emulator.idle();
    expect(received).toHaveLength(1);
    expect(received[0]!.pix).toMatchObject({ endToEndId: paid['endToEndId'], txid: txid(1), amountInCents: 11000 });
    expect(emulator.deliveries()[0]).toMatchObject({ state: 'delivered', attempts: [{ status: 200 }] });
  });

  it('paid with another amount: held by the book, the handler does not run', async () => {
    const { emulator, client, book, received } = await setup();
    await client.createCharge({ txid: txid(2), amountInCents: 5000 });
    emulator.pay(txid(2), { amountInCents: 100 });
    await emulator.idle();
    expect(received).toHaveLength(0);
    const held = await book.held();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ resourceId: txid(2) });
    expect(emulator.deliveries()[0]!.state).toBe('delivered');
  });

  it('a refund: pix_refund_updated with status returned', async () => {
    const { emulator, client, received, refunds } = await setup();
    await client.createCharge({ txid: txid(3), amountInCents: 3000 });
    const paid = emulator.pay(txid(3));
    await emulator.idle();
    await client.refund(paid['endToEndId'] as string, 'refund3', 3000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await emulator.idle();
    expect(received).toHaveLength(1);
    expect(refunds.map((event) => event.refund.status)).toEqual(['returned']);
    expect(refunds[0]!.refund).toMatchObject({ id: 'refund3', amountInCents: 3000 });
  });

  it('a grouped call of 20 Pix: each handled once', async () => {
    const { emulator, client, received } = await setup();
    for (let i = 0; i < 20; i++) await client.createCharge({ txid: txid(100 + i), amountInCents: 200 + i });
    for (let i = 0; i < 20; i++) emulator.pay(txid(100 + i));
    await emulator.idle();
    expect(emulator.deliveries()).toHaveLength(1);
    expect(emulator.deliveries()[0]!.endToEndIds).toHaveLength(20);
    expect(received.map((event) => event.pix.amountInCents).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 200 + i));
    expect(new Set(received.map((event) => event.pix.endToEndId)).size).toBe(20);
  });
});
