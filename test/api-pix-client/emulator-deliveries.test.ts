import { afterEach, describe, expect, it } from 'vitest';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { PixhookConfigError } from '../../src/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { clientFor, startApiPix, startMtlsReceiver, txid } from './emulator-setup.js';

let emulator: ApiPixEmulator | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  for (const close of closers.splice(0)) await close();
});

async function setup(options: Parameters<typeof startApiPix>[0] = {}, answer?: Parameters<typeof startMtlsReceiver>[1]) {
  emulator = await startApiPix(options);
  const receiver = await startMtlsReceiver(emulator, answer);
  closers.push(receiver.close);
  const client = clientFor(emulator);
  await client.configureWebhook(receiver.url);
  return { emulator, receiver, client };
}

type PixBody = { pix: Array<Record<string, unknown>> };

describe('api-pix emulator deliveries', () => {
  it('POSTs { pix: [...] } to {webhookUrl}/pix over mTLS, presenting the run client certificate', async () => {
    const { emulator, receiver, client } = await setup();
    await client.createCharge({ txid: txid(1), amountInCents: 11000 });
    const paid = emulator.pay(txid(1), { infoPagador: 'pedido 1' });
    await emulator.idle();
    expect(receiver.calls).toHaveLength(1);
    const call = receiver.calls[0]!;
    expect(call).toMatchObject({ path: '/webhook/pix', authorized: true, clientName: 'pixhook-emulator-client' });
    expect((call.body as PixBody).pix).toEqual([
      {
        endToEndId: paid['endToEndId'],
        txid: txid(1),
        valor: '110.00',
        chave: emulator.credentials.pixKey,
        horario: paid['horario'],
        infoPagador: 'pedido 1',
      },
    ]);
    expect((paid['endToEndId'] as string).length).toBe(32);
    expect(emulator.deliveries()[0]).toMatchObject({ state: 'delivered', endToEndIds: [paid['endToEndId']], attempts: [{ status: 200 }] });
    client.close();
  });

  it('groups the Pix received within the window into one call (20 Pix, one call)', async () => {
    const { emulator, receiver, client } = await setup({ groupWindowMs: 200 });
    for (let i = 0; i < 20; i++) await client.createCharge({ txid: txid(i), amountInCents: 100 + i });
    for (let i = 0; i < 20; i++) emulator.pay(txid(i));
    await emulator.idle();
    expect(receiver.calls).toHaveLength(1);
    expect((receiver.calls[0]!.body as PixBody).pix.map((p) => p['valor'])).toEqual(
      Array.from({ length: 20 }, (_, i) => `1.${String(i).padStart(2, '0')}`),
    );
    client.close();
  });

  it('a refund asked through the API is notified once it is DEVOLVIDO, with the Pix and its devolucoes', async () => {
    const { emulator, receiver, client } = await setup();
    await client.createCharge({ txid: txid(2), amountInCents: 5000 });
    const paid = emulator.pay(txid(2));
    await emulator.idle();
    await client.refund(paid['endToEndId'] as string, 'r1', 2000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await emulator.idle();
    expect(receiver.calls).toHaveLength(2);
    const refunds = (receiver.calls[1]!.body as PixBody).pix[0]!['devolucoes'];
    expect(refunds).toMatchObject([
      { id: 'r1', valor: '20.00', status: 'DEVOLVIDO', natureza: 'ORIGINAL', horario: { liquidacao: expect.any(String) } },
    ]);
    client.close();
  });

  it('a Pix to the key without a txid, and a MED return the PSP settles itself', async () => {
    const { emulator, receiver } = await setup();
    const pix = emulator.pixToKey({ amountInCents: 750 });
    expect(pix['txid']).toBeUndefined();
    emulator.refund(pix['endToEndId'] as string, { natureza: 'MED_FRAUDE' });
    await emulator.idle();
    const bodies = receiver.calls.map((c) => (c.body as PixBody).pix);
    expect(bodies.flat().map((p) => p['endToEndId'])).toEqual([pix['endToEndId'], pix['endToEndId']]);
    expect(bodies.flat()[1]!['devolucoes']).toMatchObject([{ natureza: 'MED_FRAUDE', valor: '7.50', status: 'DEVOLVIDO' }]);
  });

  it('body-shape faults: Inter’s bare array, devolucoes as one object', async () => {
    const { emulator, receiver } = await setup();
    emulator.injectDeliveryFault({ action: 'bare-array', times: 1 });
    const first = emulator.pixToKey({ amountInCents: 100 });
    await emulator.idle();
    expect(Array.isArray(receiver.calls[0]!.body)).toBe(true);
    emulator.injectDeliveryFault({ action: 'devolucoes-object', times: 1 });
    emulator.refund(first['endToEndId'] as string);
    await emulator.idle();
    const item = (receiver.calls[1]!.body as PixBody).pix[0]!;
    expect(item['devolucoes']).toMatchObject({ status: 'DEVOLVIDO', valor: '1.00' });
    expect(emulator.deliveries().map((d) => d.shape)).toEqual(['bare-array', 'devolucoes-object']);
  });

  it('retries with backoff on 5xx and on a dropped connection, and logs every attempt', async () => {
    const { emulator, receiver } = await setup();
    emulator.injectDeliveryFault({ action: 'fail', status: 503, times: 1 });
    emulator.injectDeliveryFault({ action: 'drop', times: 1 });
    emulator.pixToKey({ amountInCents: 100 });
    await emulator.idle();
    expect(receiver.calls).toHaveLength(1);
    expect(emulator.deliveries()[0]!.attempts.map((a) => a.status)).toEqual([503, 0, 200]);
    expect(emulator.deliveries()[0]!.state).toBe('delivered');
  });

  it('a receiver that keeps failing gets the webhook disabled after N failed attempts; later Pix are not sent', async () => {
    const { emulator, receiver } = await setup({}, () => 500);
    emulator.injectDeliveryFault({ action: 'disable-after', failures: 4 });
    emulator.pixToKey({ amountInCents: 100 });
    await emulator.idle();
    expect(receiver.calls).toHaveLength(3);
    // The fourth failed attempt disables it: the second delivery stops there.
    emulator.pixToKey({ amountInCents: 200 });
    await emulator.idle();
    expect(receiver.calls).toHaveLength(4);
    emulator.pixToKey({ amountInCents: 300 });
    await emulator.idle();
    expect(receiver.calls).toHaveLength(4);
    expect(emulator.deliveries().map((d) => d.state)).toEqual(['failed', 'failed', 'disabled']);
  });

  it('the emulator refuses unknown options and profiles at construction', async () => {
    await expect(startEmulator({ profile: 'api-pix', colour: 'red' } as never)).rejects.toThrow(PixhookConfigError);
    await expect(startEmulator({ profile: 'stripe' } as never)).rejects.toThrow(
      /`profile` must be "gateway", "api-pix", "mercado-pago", "asaas", "pagbank", "woovi", "pagarme"/,
    );
  });
});
