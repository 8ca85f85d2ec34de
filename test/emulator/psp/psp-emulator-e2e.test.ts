// For each PSP, end to end over real HTTP: its emulator pays and delivers as the PSP does (signed by the
// sources' own signers, retried on its schedule scaled down), and a createPspReceiver behind node:http
// receives it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../../adapters/node/index.js';
import { startEmulator, type PspEmulator } from '../../../src/emulator/index.js';
import { memoryPaymentBook, type PaymentBook, type PixEvent } from '../../../src/index.js';
import { createPspReceiver } from '../../../src/psp/index.js';
import { asaasTokenOnly, pspCases, type PspCase, type SentDelivery } from './psp-cases.js';

interface Run {
  emulator: PspEmulator;
  book: PaymentBook;
  paid: PixEvent[];
  /** Posts a delivery as the emulator sent it (or a copy made wrong), straight to the receiver. */
  post(delivery: SentDelivery): Promise<{ status: number; body: Record<string, unknown> }>;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function start(c: PspCase, { withBook = true, query = '' } = {}): Promise<Run> {
  const emulator = await startEmulator({ profile: c.psp, timeFactor: 0.0001 });
  open.push(emulator);
  const book = memoryPaymentBook();
  const receiver = createPspReceiver({ ...c.options(emulator), ...(withBook && { book }), ...(c.fetches && { fetchTimeoutMs: 2_000 }) });
  const paid: PixEvent[] = [];
  receiver.on('transaction_paid', (event) => void paid.push(event));
  const server: Server = createServer(createNodeHandler(receiver));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
  const { port } = server.address() as AddressInfo;
  emulator.setWebhookUrl(`http://127.0.0.1:${port}${c.path}${query === '' ? '' : (c.path.includes('?') ? '&' : '?') + query}`);
  const post = async (d: SentDelivery) => {
    const response = await fetch(d.url, { method: 'POST', headers: { ...d.headers, 'content-type': 'application/json' }, body: d.body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { emulator, book, paid, post };
}

const statuses = (e: PspEmulator) => e.deliveries().map((d) => d.attempts.map((a) => a.status));

describe.each([...pspCases, asaasTokenOnly])('the $label emulator against createPspReceiver', (c) => {
  it('pay: the webhook is delivered once, 200, and the handler runs once with the paid cents', async () => {
    const run = await start(c);
    const charge = run.emulator.createCharge({ amountInCents: 2590 });
    await run.emulator.pay(charge.id);
    await run.emulator.idle();
    expect(statuses(run.emulator)).toEqual([[200]]);
    expect(run.paid).toHaveLength(1);
    const event = run.paid[0]!;
    expect(event.provider).toBe(c.psp);
    expect(event.kind === 'transaction' && event.transaction.id).toBe(charge.id);
    expect(event.kind === 'transaction' && event.transaction.amountInCents).toBe(2590);
  });

  it('the duplicate and the late pending: both acknowledged, neither runs the handler again nor undoes the payment', async () => {
    const run = await start(c);
    const charge = run.emulator.createCharge({ amountInCents: 700 });
    await run.emulator.pay(charge.id, { duplicate: true, latePending: true });
    await run.emulator.idle();
    expect(run.emulator.deliveries().map((d) => d.kind)).toEqual(['paid', 'duplicate', 'late-pending']);
    expect(statuses(run.emulator)).toEqual([[200], [200], [200]]);
    expect(run.paid).toHaveLength(1);
    expect((await run.book.get(charge.id))?.status).toBe('paid');
  });

  it('the duplicate is the same webhook sent again, byte for byte: without a book it is answered duplicate and runs once', async () => {
    const run = await start(c, { withBook: false });
    const charge = run.emulator.createCharge({ amountInCents: 700 });
    await run.emulator.pay(charge.id, { duplicate: true });
    await run.emulator.idle();
    const [paid, duplicate] = run.emulator.deliveries();
    expect(duplicate).toMatchObject({ kind: 'duplicate', url: paid!.url, headers: paid!.headers, body: paid!.body });
    expect(statuses(run.emulator)).toEqual([[200], [200]]);
    expect(run.paid).toHaveLength(1);
  });

  it('without a book, the late pending (a new event of the paid payment) runs the paid handler no second time, in either order', async () => {
    const run = await start(c, { withBook: false });
    const charge = run.emulator.createCharge({ amountInCents: 700 });
    await run.emulator.pay(charge.id, { latePending: true });
    await run.emulator.idle();
    const [paid, late] = run.emulator.deliveries();
    expect([paid!.kind, late!.kind]).toEqual(['paid', 'late-pending']);
    // A new delivery, not a copy: Asaas's late PAYMENT_CREATED carries an event id of its own.
    expect(late!.body).not.toBe(paid!.body);
    expect(statuses(run.emulator)).toEqual([[200], [200]]);
    expect(run.paid).toHaveLength(1);
    // The other order, to a receiver that saw neither: the late event first (confirmed as paid where the PSP's API
    // decides), then the payment's own webhook.
    const fresh = createPspReceiver({ ...c.options(run.emulator), ...(c.fetches && { fetchTimeoutMs: 2_000 }) });
    const freshPaid: PixEvent[] = [];
    fresh.on('transaction_paid', (event) => void freshPaid.push(event));
    for (const d of [late!, paid!]) {
      const url = new URL(d.url);
      const answer = await fresh.receive({ method: 'POST', headers: { ...d.headers }, body: d.body, url: url.pathname + url.search });
      expect(answer.status).toBe(200);
    }
    expect(freshPaid).toHaveLength(1);
    await fresh.close();
  });

  it('a registered URL with a query of its own keeps it, and the PSP adds its parameters after it', async () => {
    const run = await start(c, { query: 'shop=1' });
    const charge = run.emulator.createCharge({ amountInCents: 700 });
    await run.emulator.pay(charge.id);
    await run.emulator.idle();
    const url = new URL(run.emulator.deliveries()[0]!.url);
    expect(url.searchParams.get('shop')).toBe('1');
    expect(url.search.split('?')).toHaveLength(2);
    expect(statuses(run.emulator)).toEqual([[200]]);
    expect(run.paid).toHaveLength(1);
  });

  it('a wrong amount against the book’s expectation is held: acknowledged, the handler does not run', async () => {
    const run = await start(c);
    const charge = run.emulator.createCharge({ amountInCents: 1000 });
    await run.book.expect({ id: charge.id, amountInCents: 1000 });
    await run.emulator.pay(charge.id, { amountInCents: 999 });
    await run.emulator.idle();
    expect(statuses(run.emulator)).toEqual([[200]]);
    expect(run.paid).toHaveLength(0);
    const held = await run.book.held();
    expect(held.map((h) => [h.resourceId, h.violations.map((v) => v.reason)])).toEqual([[charge.id, ['amount_mismatch']]]);
  });

  it('a forged delivery is refused 401; one replayed with another charge’s id is refused or, unsigned, decided by the fetch', async () => {
    const run = await start(c);
    const charge = run.emulator.createCharge({ amountInCents: 300 });
    const other = run.emulator.createCharge({ amountInCents: 300 });
    await run.emulator.pay(charge.id);
    await run.emulator.idle();
    const sent = run.emulator.deliveries()[0]!;
    const forged = await run.post(c.forged(sent));
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ error: 'signature_mismatch' });
    const replayed = await run.post(c.replayed(sent, charge.id, other.id));
    if (c.psp === 'pagarme' || (c.psp === 'asaas' && c.fetches)) {
      // A token or URL secret signs no body: the fetched charge decides, and it is not paid.
      expect(replayed.status).toBe(200);
    } else if (c.psp === 'asaas') {
      // The token alone: the copy keeps the event id it was sent with, so it is that event's duplicate.
      expect(replayed).toMatchObject({ status: 200, body: { reason: 'duplicate' } });
    } else {
      expect(replayed.status).toBe(401);
      expect(replayed.body).toMatchObject({ error: 'signature_mismatch' });
    }
    expect(run.paid.map((e) => e.kind === 'transaction' && e.transaction.id)).toEqual([charge.id]);
  });

  if (c.fetches)
    it('an id-only delivery whose fetch fails (the API answers 503): 503 gateway_unavailable, and the PSP’s retry succeeds', async () => {
      const run = await start(c);
      const charge = run.emulator.createCharge({ amountInCents: 4200 });
      run.emulator.injectFetchFault({ status: 503, times: 1 });
      await run.emulator.pay(charge.id);
      await run.emulator.idle();
      expect(statuses(run.emulator)).toEqual([[503, 200]]);
      expect(run.paid).toHaveLength(1);
      expect(
        run.emulator
          .requests()
          .filter((r) => r.method === 'GET')
          .map((r) => r.status),
      ).toEqual([503, 200]);
      // The answer itself, over real HTTP: the PSP's delivery again while its API fails is 503 gateway_unavailable.
      run.emulator.injectFetchFault({ status: 500, times: 1 });
      const unconfirmed = await run.post(run.emulator.deliveries()[0]!);
      expect(unconfirmed).toMatchObject({ status: 503, body: { error: 'gateway_unavailable' } });
      expect(run.paid).toHaveLength(1);
    });
});
