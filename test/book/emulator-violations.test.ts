import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createClient, type PixClient } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  createReceiver,
  memoryPaymentBook,
  type MemoryPaymentBook,
  type PixEvent,
  type Receiver,
  type Violation,
  type ViolationReason,
} from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { sendHttp, type ContractRequest, type ContractResponse } from '../contract/contract-target.js';
import { customer } from '../helpers/customer.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 22, "Done when": the real emulator delivers to a real receiver over HTTP (memory book, `confirm`
// with a client of the same emulator). Each violation is held or flagged as the defaults say, and a held
// event is released exactly once.

const webhookSecret = 'whsec_emulator_violations';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface World {
  emulator: Emulator;
  book: MemoryPaymentBook;
  receiver: Receiver;
  /** Sends one request straight to the receiver (not through the emulator). */
  send(request: ContractRequest): Promise<ContractResponse>;
  url: string;
  /** The merchant's client: every charge it creates is expected in the book. */
  merchant: PixClient;
  handled: PixEvent[];
  violations: [Violation, PixEvent][];
}

async function world(): Promise<World> {
  const emulator = await startEmulator({ variant: 'b', webhookSecret, retry: { attempts: 5, backoff: { delayMs: 20 } } });
  const book = memoryPaymentBook();
  const credentials = { apiKey: emulator.credentials.apiKey, apiSecret: emulator.credentials.apiSecret, baseUrl: emulator.url };
  // One read per confirmation (no client retry), so a gateway fault maps to exactly one 503.
  const confirmer = createClient({ ...credentials, variant: 'b', retry: { attempts: 1 } });
  const handled: PixEvent[] = [];
  const violations: [Violation, PixEvent][] = [];
  const receiver = createReceiver({ secret: webhookSecret, book, confirm: confirmer, retryAfterSeconds: 1 })
    .on(['transaction_paid', 'transaction_refunded'], (event) => void handled.push(event))
    .onViolation((violation, event) => void violations.push([violation, event]));
  const server = createServer(createNodeHandler(receiver));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/pix`;
  const merchant = createClient({ ...credentials, variant: 'b', book });
  cleanups.push(
    () => emulator.close(),
    () => new Promise<void>((resolve) => server.close(() => resolve())),
  );
  return { emulator, book, receiver, send: (request) => sendHttp(url, request), url, merchant, handled, violations };
}

/** A charge of 10,00 whose postbackUrl is the receiver; its `transaction_created` is delivered first. */
async function charge(w: World, client: PixClient = w.merchant): Promise<string> {
  const created = await client.createCharge({ amountInCents: 1000, customer, postbackUrl: w.url });
  await w.emulator.idle();
  return created.id;
}

async function pay(w: World, id: string, body?: unknown): Promise<void> {
  const response = await fetch(`${w.emulator.url}/_emulator/transactions/${id}/pay`, {
    method: 'POST',
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  expect(response.status).toBe(200);
  await w.emulator.idle();
}

/** Each attempt of the deliveries of `event` for `id`, as `status reason` ('' for a plain 200). */
function answers(w: World, id: string, event = 'transaction_paid'): string[][] {
  return w.emulator
    .deliveries()
    .filter((delivery) => delivery.resourceId === id && delivery.event === event)
    .map((delivery) =>
      delivery.attempts.map((attempt) => {
        const body = JSON.parse(attempt.responseBody ?? '{}') as { reason?: string; error?: string };
        return `${attempt.status} ${body.reason ?? body.error ?? ''}`.trim();
      }),
    );
}

const reasonsOf = (w: World): [ViolationReason, string][] => w.violations.map(([violation]) => [violation.reason, violation.action]);

/** The one held event: released once (handlers run once), a second release refused, a late retry a duplicate. */
async function releaseOnce(w: World, id: string): Promise<void> {
  const held = await w.book.held();
  expect(held.map((entry) => entry.resourceId)).toEqual([id]);
  const before = w.handled.length;
  const results = await Promise.all([w.receiver.release(held[0]!.heldId), w.receiver.release(held[0]!.heldId)]);
  expect(results.map((result) => (result.ok ? 'ok' : result.reason)).sort()).toEqual(['already_released', 'ok']);
  expect(w.handled.length).toBe(before + 1);
  expect(await w.book.held()).toEqual([]);
  // The sender's late copy of the released event: a duplicate, its handlers do not run again.
  const last = w.emulator
    .deliveries()
    .filter((delivery) => delivery.resourceId === id && delivery.event === 'transaction_paid')
    .at(-1)!;
  w.emulator.redeliver(last.id);
  await w.emulator.idle();
  expect(answers(w, id).at(-1)).toEqual(['200 duplicate']);
  expect(w.handled.length).toBe(before + 1);
}

describe('the payment book end to end: emulator → HTTP → receiver (memory book, confirm)', () => {
  it('a wrong amount is held (amount_mismatch), then released exactly once', async () => {
    const w = await world();
    const id = await charge(w);
    await pay(w, id, { amountInCents: 999 });
    expect(answers(w, id)).toEqual([['200 held']]);
    expect(reasonsOf(w)).toEqual([['amount_mismatch', 'hold']]);
    expect(w.handled).toEqual([]);
    await releaseOnce(w, id);
    expect(w.handled[0]).toMatchObject({ transaction: { id, amountInCents: 999 } });
    expect((await w.book.get(id))?.status).toBe('paid');
  });

  it('a wrong payer is held (payer_mismatch), then released exactly once', async () => {
    const w = await world();
    const id = await charge(w);
    await pay(w, id, { payer: { name: 'Outra Pessoa', document: '111.444.777-35' } });
    expect(answers(w, id)).toEqual([['200 held']]);
    expect(reasonsOf(w)).toEqual([['payer_mismatch', 'hold']]);
    expect(JSON.stringify(w.violations)).not.toContain('11144477735');
    await releaseOnce(w, id);
  });

  it('paid after expiry is flagged (paid_after_expiry): handled, with the violation on the event', async () => {
    const w = await world();
    const id = await charge(w);
    w.emulator.expire(id);
    await w.emulator.idle();
    await pay(w, id);
    expect(answers(w, id)).toEqual([['200']]);
    expect(reasonsOf(w)).toEqual([['paid_after_expiry', 'flag']]);
    expect(w.handled.map((event) => event.violations?.map((violation) => violation.reason))).toEqual([['paid_after_expiry']]);
    expect(await w.book.held()).toEqual([]);
  });

  it('paid twice: the first payment is handled, the second held (duplicate_payment), then released exactly once', async () => {
    const w = await world();
    const id = await charge(w);
    await pay(w, id);
    await pay(w, id);
    expect(answers(w, id)).toEqual([['200'], ['200 held']]);
    expect(reasonsOf(w)).toEqual([['duplicate_payment', 'hold']]);
    expect(w.handled).toHaveLength(1);
    await releaseOnce(w, id);
    expect(new Set(w.handled.map((event) => (event.kind === 'transaction' ? event.transaction.endToEndId : ''))).size).toBe(2);
  });

  it('an unknown charge (created without the book, once expectations are in use) is flagged (unknown_charge)', async () => {
    const w = await world();
    await charge(w);
    const outsider = createClient({ ...w.emulator.credentials, baseUrl: w.emulator.url, variant: 'b' });
    const id = await charge(w, outsider);
    await pay(w, id);
    expect(answers(w, id)).toEqual([['200']]);
    expect(reasonsOf(w)).toEqual([['unknown_charge', 'flag']]);
    expect(w.handled).toHaveLength(1);
  });

  it('a confirmation the gateway contradicts is held (not_confirmed): a leaked secret, and an event meant for another merchant', async () => {
    const w = await world();
    const id = await charge(w);
    // Signed with the (leaked) secret, but the gateway's record still says pending.
    const forged = bytesOf(
      buildPayload('transaction_paid', {
        variant: 'b',
        id,
        amountInCents: 1000,
        scope: 'postback',
        seed: 9,
        payer: { name: customer.name, document: customer.document },
      }),
    );
    const first = await w.send({ method: 'POST', headers: { 'x-signature': signBytes(forged, webhookSecret) }, body: forged });
    expect([first.status, JSON.parse(first.body)]).toEqual([200, { ok: true, reason: 'held' }]);
    // A charge this gateway account does not have (404): another merchant's event.
    const elsewhere = bytesOf(buildPayload('transaction_paid', { variant: 'b', id: 'txn_other_merchant', amountInCents: 500, seed: 10 }));
    const second = await w.send({ method: 'POST', headers: { 'x-signature': signBytes(elsewhere, webhookSecret) }, body: elsewhere });
    expect([second.status, JSON.parse(second.body)]).toEqual([200, { ok: true, reason: 'held' }]);
    expect(reasonsOf(w)).toEqual([
      ['not_confirmed', 'hold'],
      ['unknown_charge', 'flag'],
      ['not_confirmed', 'hold'],
    ]);
    expect(w.handled).toEqual([]);
    expect((await w.book.held()).map((entry) => entry.resourceId).sort()).toEqual([id, 'txn_other_merchant'].sort());
    // The genuine payment afterwards is confirmed and handled.
    await pay(w, id);
    expect(answers(w, id)).toEqual([['200']]);
    expect(w.handled).toHaveLength(1);
  });

  it('the gateway down: 503 gateway_unavailable, then handled once when it comes back', async () => {
    const w = await world();
    const id = await charge(w);
    w.emulator.injectFault({ method: 'GET', path: `/api/v1/transactions/${id}`, action: 'status', status: 503, times: 2 });
    await pay(w, id);
    expect(answers(w, id)).toEqual([['503 gateway_unavailable', '503 gateway_unavailable', '200']]);
    const attempts = w.emulator.deliveries().find((delivery) => delivery.resourceId === id && delivery.event === 'transaction_paid')!;
    expect(attempts.attempts[0]?.responseBody).not.toMatch(/SERVER_ERROR|emulator/i);
    expect(w.handled).toHaveLength(1);
    expect(w.violations).toEqual([]);
    expect((await w.book.get(id))?.timeline.map((entry) => `${entry.name}/${entry.outcome}`)).toEqual([
      'transaction_created/apply',
      'transaction_paid/apply',
    ]);
  });

  it('two events in reverse order (delivery fault `delay`): the late paid after refunded is held (stale_status)', async () => {
    const w = await world();
    const id = await charge(w);
    w.emulator.injectDeliveryFault({ url: w.url, action: 'delay', delayMs: 1500, times: 1 });
    w.emulator.pay(id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    w.emulator.refund(id);
    await w.emulator.idle();
    expect(answers(w, id, 'transaction_refunded')).toEqual([['200']]);
    expect(answers(w, id)).toEqual([['200 held']]);
    expect(reasonsOf(w)).toEqual([['stale_status', 'hold']]);
    expect((await w.book.get(id))?.status).toBe('refunded');
    expect(w.handled.map((event) => event.name)).toEqual(['transaction_refunded']);
  });
});
