// The sandbox page's controls under `pixhook dev --profile <psp>`, in process: a charge expected in the
// book, paid, its webhook received once by createPspReceiver; delivery faults listed and cleared.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../../adapters/node/index.js';
import { devPspSandbox } from '../../../cli/shared/dev-psp-sandbox.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { memoryPaymentBook, type PixEvent } from '../../../src/index.js';
import { createPspReceiver } from '../../../src/psp/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

describe('the PSP sandbox of pixhook dev', () => {
  it('creates a charge expected in the book with its code, pays it once, shows the delivery; faults in force and cleared', async () => {
    const emulator = await startEmulator({ profile: 'pagbank', timeFactor: 0.0001 });
    open.push(emulator);
    const book = memoryPaymentBook();
    const receiver = createPspReceiver({ psp: 'pagbank', token: emulator.credentials['token']!, book });
    const paid: PixEvent[] = [];
    receiver.on('transaction_paid', (event) => void paid.push(event));
    const server = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
    emulator.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pagbank`);
    const sandbox = devPspSandbox({ emulator, expect: (id, amountInCents) => book.expect({ id, amountInCents }) });

    expect(await sandbox.createCharge({ amountInCents: 1234 })).toMatch(/^Created pagbank charge CHAR_/);
    const [charge] = await sandbox.charges();
    expect(charge).toMatchObject({
      status: 'pending',
      amountInCents: 1234,
      emv: expect.stringMatching(/^000201/),
      qrCode: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect((await book.get(charge!.id))?.expected).toMatchObject({ amountInCents: 1234 });
    expect(await sandbox.pay(charge!.id, {})).toBe(`Paid ${charge!.id}; pagbank sends its webhook.`);
    await emulator.idle();
    expect(paid).toHaveLength(1);
    expect(await sandbox.deliveries()).toEqual([
      expect.objectContaining({
        event: 'paid',
        resourceId: charge!.id,
        state: 'delivered',
        attempts: [expect.objectContaining({ attempt: 1, status: 200 })],
      }),
    ]);
    expect(await sandbox.expire(charge!.id)).toContain('does not play this');

    expect(await sandbox.injectFault({ action: 'fail', times: 1 })).toMatch(/answer 500 for 1 attempt\.$/);
    expect(await sandbox.faults()).toEqual([expect.objectContaining({ action: 'fail', hits: 0, times: 1 })]);
    await sandbox.createCharge({ amountInCents: 50 });
    const second = (await sandbox.charges())[0]!;
    expect(await sandbox.pay(second.id, { amountInCents: 49 })).toContain('with 49 cents');
    await emulator.idle();
    expect((await sandbox.deliveries())[0]!.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(paid).toHaveLength(1); // 49 of 50 expected: held
    expect(await sandbox.injectFault({ action: 'drop' })).toMatch(/drop until cleared\.$/);
    expect(await sandbox.clearFaults()).toBe('Every delivery fault is cleared.');
    expect(await sandbox.faults()).toEqual([]);
  });

  it("plays Mercado Pago's faults around a payment: sent twice and a late pending run the handler once; a failed read is 503 then read on the retry", async () => {
    const emulator = await startEmulator({ profile: 'mercado-pago', timeFactor: 0.0001 });
    open.push(emulator);
    const book = memoryPaymentBook();
    const c = emulator.credentials;
    const receiver = createPspReceiver({
      psp: 'mercado-pago',
      secret: c['secret']!,
      accessToken: c['accessToken']!,
      apiBaseUrl: emulator.url,
      book,
    });
    const paid: string[] = [];
    receiver.on('transaction_paid', (event) => void paid.push(event.transaction.id));
    const server = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
    emulator.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/mercado-pago`);
    const sandbox = devPspSandbox({ emulator, expect: (id, amountInCents) => book.expect({ id, amountInCents }) });
    expect(sandbox.paymentFaults!.map((f) => f.name)).toEqual(['duplicate', 'late-pending', 'fetch-failure']);

    const charge = async () => (await sandbox.createCharge({ amountInCents: 700 }), (await sandbox.charges())[0]!.id);
    const twice = await charge();
    expect(await sandbox.playPaymentFault!(twice, 'duplicate')).toContain('sends its webhook twice');
    const late = await charge();
    expect(await sandbox.playPaymentFault!(late, 'late-pending')).toContain('late pending');
    await emulator.idle(); // the fetch fault must meet the next delivery's read, not one still in flight
    const failing = await charge();
    expect(await sandbox.playPaymentFault!(failing, 'fetch-failure')).toContain('first read 503');
    await emulator.idle();
    expect(paid.sort()).toEqual([twice, late, failing].sort());
    const kinds = (await sandbox.deliveries()).map((d) => `${d.resourceId} ${d.event} ${d.attempts.map((a) => a.status).join(',')}`);
    expect(kinds).toEqual([
      `${failing} paid 503,200`,
      `${late} late-pending 200`,
      `${late} paid 200`,
      `${twice} duplicate 200`,
      `${twice} paid 200`,
    ]);
    expect((await book.get(late))?.status).toBe('paid');
  });

  it('offers no confirmation-read fault where the PSP sends the state itself (PagBank)', async () => {
    const emulator = await startEmulator({ profile: 'pagbank', timeFactor: 0.0001 });
    open.push(emulator);
    const sandbox = devPspSandbox({ emulator, expect: async () => {} });
    expect(sandbox.paymentFaults!.map((f) => f.name)).toEqual(['duplicate', 'late-pending']);
  });
});
