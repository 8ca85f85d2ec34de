import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { normalizeEvent, verifySignature } from '../../src/index.js';
import { startRecorder } from './webhook-receiver.js';
import { customer } from '../helpers/customer.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(options: EmulatorOptions, statuses: number[] = []) {
  const emulator: Emulator = await startEmulator({ retry: { backoff: { delayMs: 5 } }, transferStepMs: 5, ...options });
  const recorder = await startRecorder(statuses);
  cleanups.push(
    () => emulator.close(),
    () => recorder.close(),
  );
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: emulator.variant === 'a' ? 'a' : 'b' });
  return { emulator, recorder, client };
}

describe('webhook deliveries', () => {
  it.each(['a', 'b', 'short'] as const)('sends signed, valid %s payloads to the webhook and the postbackUrl', async (variant) => {
    const { emulator, recorder, client } = await setup({ variant, webhookSecret: 'whsec_test' });
    await client.webhooks.register({ url: recorder.url, events: ['transaction_paid'] });
    const charge = await client.createCharge({ amountInCents: 4321, customer, postbackUrl: `${recorder.url}?postback=1` });
    emulator.pay(charge.id);
    await emulator.idle();

    // The postback gets every event of its charge; the registered webhook only what it subscribed to.
    expect(recorder.events().sort()).toEqual(['transaction_created', 'transaction_paid', 'transaction_paid']);
    for (const delivery of recorder.received) {
      const check = await verifySignature({
        body: delivery.body,
        signature: delivery.headers['x-signature'] as string,
        secret: 'whsec_test',
      });
      expect(check.ok).toBe(true);
      const normalized = normalizeEvent(JSON.parse(delivery.body));
      expect(normalized.ok && normalized.event.kind === 'transaction' && normalized.event.transaction).toMatchObject({
        id: charge.id,
        amountInCents: 4321,
      });
      expect(normalized.ok && normalized.event.kind !== 'unknown' && normalized.event.variant).toBe(variant);
    }
    const paid = emulator.deliveries().filter((d) => d.event === 'transaction_paid');
    expect(paid.map((d) => d.scope).sort()).toEqual(['postback', 'user']);
  });

  it('retries an unconfirmed delivery with exponential backoff until a 2xx', async () => {
    const { emulator, recorder, client } = await setup({}, [500, 503]);
    await client.webhooks.register({ url: recorder.url, events: ['transaction_paid'] });
    const charge = await client.createCharge({ amountInCents: 1000, customer });
    emulator.pay(charge.id);
    await emulator.idle();
    const [delivery] = emulator.deliveries();
    expect(delivery?.delivered).toBe(true);
    expect(delivery?.attempts.map((a) => [a.status, a.retryInMs])).toEqual([
      [500, 5],
      [503, 10],
      [200, undefined],
    ]);
    expect(recorder.received).toHaveLength(3);
    expect(new Set(recorder.received.map((r) => r.body)).size).toBe(1);
    expect(await client.webhooks.get(delivery!.webhookId!)).toMatchObject({ totalDeliveries: 1, successfulDeliveries: 1 });
  });

  it('gives up after 5 attempts', async () => {
    const { emulator, recorder, client } = await setup({}, [401, 401, 401, 401, 401, 401]);
    await client.webhooks.register({ url: recorder.url, events: ['transaction_paid'] });
    const charge = await client.createCharge({ amountInCents: 1000, customer });
    emulator.pay(charge.id);
    await emulator.idle();
    expect(emulator.deliveries()[0]).toMatchObject({ delivered: false });
    expect(recorder.received).toHaveLength(5);
    expect(await client.webhooks.list()).toMatchObject([{ totalDeliveries: 1, successfulDeliveries: 0, successRate: 0 }]);
  });

  it('delivers every state change of charges and transfers', async () => {
    const { emulator, recorder, client } = await setup({ variant: 'b' });
    await client.webhooks.register({
      url: recorder.url,
      events: [
        'transaction_created',
        'transaction_paid',
        'transaction_refunded',
        'transaction_updated',
        'transfer_created',
        'transfer_updated',
        'transfer_completed',
      ],
    });
    const refunded = await client.createCharge({ amountInCents: 100, customer });
    const expired = await client.createCharge({ amountInCents: 100, customer });
    emulator.pay(refunded.id);
    emulator.refund(refunded.id, 'cliente desistiu');
    emulator.expire(expired.id);
    const transfer = await client.sendTransfer({ pixKey: 'fornecedor@example.com', amountInCents: 300 });
    await client.waitForTransactionStatus(transfer.id, { status: 'completed', intervalMs: 5 });
    await emulator.idle();

    const statuses = recorder.received.map((r) => {
      const body = JSON.parse(r.body) as {
        event: string;
        transaction?: { id: string; status: string };
        transfer?: { id: string; status: string };
      };
      const resource = body.transaction ?? body.transfer;
      return `${resource?.id === refunded.id ? 'R' : resource?.id === expired.id ? 'E' : 'T'} ${body.event} ${resource?.status}`;
    });
    expect(statuses.sort()).toEqual(
      [
        'R transaction_created pending',
        'R transaction_paid paid',
        'R transaction_refunded refunded',
        'E transaction_created pending',
        'E transaction_updated expired',
        'T transfer_created queued',
        'T transfer_updated processing',
        'T transfer_completed completed',
      ].sort(),
    );
  });
});
