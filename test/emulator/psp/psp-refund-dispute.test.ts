// Issue 38 §4: the PSP emulator plays what its PSP has after a payment — a refund (Mercado Pago `refunded`,
// Asaas PAYMENT_REFUNDED, PagBank's charge CANCELED with summary.refunded, Woovi TRANSACTION_REFUND_RECEIVED,
// Pagar.me charge.refunded) and a dispute (Mercado Pago `charged_back`, Asaas PAYMENT_CHARGEBACK_REQUESTED,
// Woovi DISPUTE_*, Pagar.me charge.chargedback) — each webhook read by createPspReceiver
// into the union's event. What a profile does not play is a 422, sending nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../../adapters/node/index.js';
import { startEmulator, type PspEmulator } from '../../../src/emulator/index.js';
import { memoryPaymentBook, type PixEvent } from '../../../src/index.js';
import { createPspReceiver } from '../../../src/psp/index.js';
import { pspCases } from './psp-cases.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** Per PSP: what it plays, and the event name each fact reaches the handlers as. */
const expected: Record<string, { refund?: string; dispute?: string }> = {
  'mercado-pago': { refund: 'transaction_refunded', dispute: 'transaction_refunded' },
  asaas: { refund: 'transaction_refunded', dispute: 'transaction_infraction' },
  pagbank: { refund: 'transaction_refunded' },
  woovi: { refund: 'transaction_refunded', dispute: 'transaction_infraction' },
  pagarme: { refund: 'transaction_refunded', dispute: 'transaction_refunded' },
};

describe.each(pspCases)('the $psp emulator: refund and dispute', (c) => {
  it('plays each fact its PSP has, read as the union’s event for the same charge; refuses the others', async () => {
    const emulator: PspEmulator = await startEmulator({ profile: c.psp, timeFactor: 0.0001 });
    open.push(emulator);
    const receiver = createPspReceiver({ ...c.options(emulator), ...(c.fetches && { fetchTimeoutMs: 2_000 }) });
    const events: PixEvent[] = [];
    receiver.onAny((event) => void events.push(event));
    const server: Server = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
    emulator.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}${c.path}`);
    const want = expected[c.psp]!;
    expect([...emulator.plays]).toEqual(Object.keys(want));

    for (const fact of ['refund', 'dispute'] as const) {
      const charge = emulator.createCharge({ amountInCents: 1500 });
      if (want[fact] === undefined) {
        await emulator.pay(charge.id);
        await emulator.idle();
        await expect(emulator[fact](charge.id)).rejects.toThrow(/does not play/);
        continue;
      }
      await expect(emulator[fact](charge.id)).rejects.toThrow(/not paid/); // only a paid charge
      await emulator.pay(charge.id);
      // Delivered first: where the receiver fetches, a payment read after the refund is the refunded state.
      await emulator.idle();
      const after = await emulator[fact](charge.id);
      expect(after.status).toBe(fact === 'refund' ? 'refunded' : 'disputed');
      await emulator.idle();
      const mine = events.filter((e) => e.kind === 'transaction' && e.transaction.id === charge.id).map((e) => e.name);
      expect(mine, fact).toEqual(['transaction_paid', want[fact]]);
      const last = events.at(-1)!;
      if (last.kind !== 'transaction') throw new Error('a transaction event');
      // Amounts exact: the charge's 1500 cents stay its amount; a refund states what was returned.
      expect(last.transaction.amountInCents, fact).toBe(1500);
      // Woovi's TRANSACTION_REFUND_RECEIVED as the emulator plays it names no refunded amount apart from the charge's.
      if (fact === 'refund' && c.psp !== 'woovi') expect(last.transaction.refund?.amountInCents, fact).toBe(1500);
      if (want[fact] === 'transaction_infraction') expect(last.transaction.status).toBe('paid');
    }
    const sent = emulator.deliveries();
    expect(sent.every((d) => d.state === 'delivered')).toBe(true);
    expect(sent.filter((d) => d.kind === 'refund' || d.kind === 'dispute').map((d) => d.kind)).toEqual(
      (['refund', 'dispute'] as const).filter((f) => want[f] !== undefined),
    );
  });
});

describe('the refund and dispute controls', () => {
  it('POST /_emulator/charges/{id}/refund and /dispute play the fact; a profile that does not play it answers 422', async () => {
    const emulator = await startEmulator({ profile: 'pagarme', timeFactor: 0.0001 });
    open.push(emulator);
    const control = (path: string) =>
      fetch(`${emulator.url}/_emulator/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const refunded = emulator.createCharge({ amountInCents: 100 });
    const disputed = emulator.createCharge({ amountInCents: 100 });
    await emulator.pay(refunded.id);
    await emulator.pay(disputed.id);
    expect(((await (await control(`charges/${refunded.id}/refund`)).json()) as { status: string }).status).toBe('refunded');
    expect(((await (await control(`charges/${disputed.id}/dispute`)).json()) as { status: string }).status).toBe('disputed');
    expect((await control(`charges/${refunded.id}/refund`)).status).toBe(422); // refunded already: not paid

    const pagbank = await startEmulator({ profile: 'pagbank', timeFactor: 0.0001 });
    open.push(pagbank);
    const charge = pagbank.createCharge({ amountInCents: 100 });
    await pagbank.pay(charge.id);
    const answer = await fetch(`${pagbank.url}/_emulator/charges/${charge.id}/dispute`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(422);
    expect(pagbank.charges()[0]!.status).toBe('paid');
  });
});

describe('a dispute in stages (Asaas’s chargeback)', () => {
  it('each dispute control plays the next stage’s webhook and API state, read into the book’s one dispute; past the last, 422', async () => {
    const emulator = await startEmulator({ profile: 'asaas', timeFactor: 0.0001 });
    open.push(emulator);
    const book = memoryPaymentBook();
    const receiver = createPspReceiver({ psp: 'asaas', token: emulator.credentials['token']!, book });
    const stages: string[] = [];
    receiver.on('transaction_infraction', (event) => void stages.push(event.transaction.infraction?.status ?? ''));
    const server: Server = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
    emulator.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    const charge = emulator.createCharge({ amountInCents: 1500 });
    await emulator.pay(charge.id);
    await emulator.idle();
    const fetched: string[] = [];
    for (let stage = 0; stage < 3; stage++) {
      expect(await emulator.dispute(charge.id)).toMatchObject({ status: 'disputed', disputeStage: stage });
      await emulator.idle();
      const answer = await fetch(`${emulator.url}/v3/payments/${charge.id}`, {
        headers: { access_token: emulator.credentials['apiKey']! },
      });
      fetched.push(((await answer.json()) as { status: string }).status);
    }
    await expect(emulator.dispute(charge.id)).rejects.toThrow(/not paid/);
    expect(emulator.deliveries().map((d) => (JSON.parse(d.body) as { event: string }).event)).toEqual([
      'PAYMENT_RECEIVED',
      'PAYMENT_CHARGEBACK_REQUESTED',
      'PAYMENT_CHARGEBACK_DISPUTE',
      'PAYMENT_AWAITING_CHARGEBACK_REVERSAL',
    ]);
    expect(emulator.deliveries().every((d) => d.state === 'delivered')).toBe(true);
    expect(fetched).toEqual(['CHARGEBACK_REQUESTED', 'CHARGEBACK_DISPUTE', 'AWAITING_CHARGEBACK_REVERSAL']);
    expect(stages).toEqual(['chargeback_requested', 'chargeback_dispute', 'resolved']);
    expect((await book.disputes()).map((d) => [d.resourceId, d.status, d.open])).toEqual([[charge.id, 'resolved', false]]);
    expect((await book.get(charge.id))?.status).toBe('paid');
    await receiver.close();
  });

  it('a profile with one stage refuses a second dispute: 422, nothing sent', async () => {
    const emulator = await startEmulator({ profile: 'pagarme', timeFactor: 0.0001 });
    open.push(emulator);
    const charge = emulator.createCharge({ amountInCents: 100 });
    await emulator.pay(charge.id);
    await emulator.dispute(charge.id);
    await expect(emulator.dispute(charge.id)).rejects.toThrow(/is disputed, not paid/);
    expect(emulator.deliveries()).toHaveLength(0); // no URL registered: nothing is sent at all
  });
});
