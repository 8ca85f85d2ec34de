import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { startRecorder } from './webhook-receiver.js';
import { customer } from '../helpers/customer.js';

// The cases the payment book judges (issue 22), produced by the emulator: a payment of another amount
// or by another payer, a second payment, a payment after expiry, a MED dispute, and two events in reverse order.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Sent {
  event: string;
  transaction: { id: string; amount: number; status: string; pix?: { endToEndId?: string; payerInfo?: { document?: string } } };
  [key: string]: unknown;
}

async function setup(options: EmulatorOptions = {}) {
  const emulator: Emulator = await startEmulator({ variant: 'b', retry: { backoff: { delayMs: 5 } }, ...options });
  const recorder = await startRecorder();
  cleanups.push(
    () => emulator.close(),
    () => recorder.close(),
  );
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: 'b' });
  const charge = await client.createCharge({ amountInCents: 1000, customer, postbackUrl: recorder.url });
  const control = async (path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}/_emulator/transactions/${charge.id}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data: Record<string, unknown>; error?: unknown } };
  };
  const sent = async () => {
    await emulator.idle();
    return recorder.received.map((r) => JSON.parse(r.body) as Sent).filter((body) => body.event !== 'transaction_created');
  };
  return { emulator, recorder, client, charge, control, sent };
}

describe('emulator: every case of the payment book', () => {
  it('POST …/pay takes { amountInCents, payer }: the event and the gateway record carry what was paid', async () => {
    const { client, charge, control, sent } = await setup();
    const paid = await control('pay', { amountInCents: 999, payer: { name: 'Outra Pessoa', document: '111.444.777-35' } });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'paid', amountInCents: 999, requestedAmountInCents: 1000 });
    const [event] = await sent();
    expect(event).toMatchObject({
      event: 'transaction_paid',
      transaction: { id: charge.id, amount: 999, status: 'paid', pix: { payerInfo: { name: 'Outra Pessoa', document: '111.444.777-35' } } },
    });
    expect(await client.getTransaction(charge.id)).toMatchObject({ status: 'paid', amountInCents: 999 });
    expect((await control('pay', { amountInCents: 0 })).status).toBe(400);
  });

  it('paying twice sends a second transaction_paid with its own endToEndId', async () => {
    const { emulator, charge, control, sent } = await setup();
    expect((await control('pay')).status).toBe(200);
    expect((await control('pay')).status).toBe(200);
    const events = await sent();
    expect(events.map((body) => body.event)).toEqual(['transaction_paid', 'transaction_paid']);
    const ids = events.map((body) => body.transaction.pix?.endToEndId);
    expect(new Set(ids).size).toBe(2);
    expect(
      emulator
        .charges()
        .find((c) => c.id === charge.id)
        ?.payments?.map((p) => [p.endToEndId, p.paidWhen]),
    ).toEqual([
      [ids[0], 'pending'],
      [ids[1], 'paid'],
    ]);
  });

  it('paying after expiry is possible (expired → paid); a refunded charge cannot be paid', async () => {
    const { emulator, charge, control, sent } = await setup();
    emulator.expire(charge.id);
    expect((await control('pay')).body.data).toMatchObject({ status: 'paid' });
    expect((await sent()).map((body) => [body.event, body.transaction.status])).toEqual([
      ['transaction_updated', 'expired'],
      ['transaction_paid', 'paid'],
    ]);
    expect(emulator.charges()[0]?.payments?.[0]?.paidWhen).toBe('expired');
    emulator.refund(charge.id);
    expect(await control('pay')).toMatchObject({ status: 422 });
  });

  it('POST …/infraction sends transaction_infraction on a paid charge (422 before it is paid)', async () => {
    const { charge, control, sent } = await setup();
    expect((await control('infraction')).status).toBe(422);
    await control('pay');
    const opened = await control('infraction', { reason: 'fraud', openedAt: '2026-05-01T12:00:00Z' });
    expect(opened.status).toBe(200);
    expect((await control('infraction', { openedAt: 'yesterday' })).status).toBe(400);
    const disputes = (await sent()).filter((body) => body.event === 'transaction_infraction');
    expect(disputes).toEqual([
      expect.objectContaining({
        transaction: expect.objectContaining({
          id: charge.id,
          status: 'paid',
          infraction: expect.objectContaining({ reason: 'fraud', openedAt: '2026-05-01T12:00:00Z', id: expect.stringMatching(/^inf_/) }),
        }),
      }),
    ]);
  });

  it('a delivery fault `delay` makes two events arrive in reverse order', async () => {
    const { emulator, recorder, charge, sent } = await setup();
    await emulator.idle();
    const fault = emulator.injectDeliveryFault({ url: recorder.url, action: 'delay', delayMs: 1500, times: 1 });
    emulator.pay(charge.id);
    // The refund leaves after the payment, and reaches the receiver first.
    await new Promise((resolve) => setTimeout(resolve, 20));
    emulator.refund(charge.id);
    expect((await sent()).map((body) => body.event)).toEqual(['transaction_refunded', 'transaction_paid']);
    const paidDelivery = emulator.deliveries().find((d) => d.event === 'transaction_paid')!;
    expect(paidDelivery.attempts.map((a) => [a.status, a.fault])).toEqual([[200, { id: fault.id, action: 'delay' }]]);
  });

  it('refuses a delay without delayMs, or delayMs without delay, over HTTP and in options', async () => {
    const { emulator } = await setup();
    const post = (body: unknown) =>
      fetch(`${emulator.url}/_emulator/delivery-faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    expect(await post({ action: 'delay' })).toBe(400);
    expect(await post({ action: 'fail', delayMs: 5 })).toBe(400);
    expect(await post({ action: 'delay', delayMs: 5 })).toBe(201);
    expect(() => emulator.injectDeliveryFault({ action: 'delay' })).toThrow(/`fault.delayMs` must be a delivery fault/);
  });
});
