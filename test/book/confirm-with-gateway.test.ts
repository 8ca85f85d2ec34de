import { describe, expect, it, vi } from 'vitest';
import {
  createProcessing,
  createReceiver,
  memoryPaymentBook,
  type ConfirmClient,
  type PixEvent,
  type ReceiverOptions,
  type Violation,
} from '../../src/index.js';
import { PixNotFoundError, PixRateLimitedError, PixServerError } from '../../src/client/index.js';
import { gatewayAgrees } from '../../src/book/confirm-with-gateway.js';
import { buildPayload, type PayloadOptions } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { chargeEvent, transferEvent } from './book-events.js';

const secret = 'whsec_book_confirm';
const e2e = 'E12345678202605011200ccccccccccc';

function delivery(name: Parameters<typeof buildPayload>[0], options: PayloadOptions) {
  const bytes = bytesOf(buildPayload(name, { variant: 'b', seed: 1, ...options }));
  return { method: 'POST', headers: { 'x-signature': signBytes(bytes, secret) }, body: bytes };
}

type Answer = { status: string; amountInCents?: number } | Error;

/** A gateway whose record of each id the test sets; every read is counted. */
function fakeGateway(records: Record<string, Answer>) {
  const reads: string[] = [];
  const client: ConfirmClient = {
    async getTransaction(id) {
      reads.push(id);
      const answer = records[id] ?? new PixNotFoundError({ status: 404, code: 'NOT_FOUND', message: 'no such transaction' });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { client, reads, records };
}

function setup(client: ConfirmClient, options: Partial<ReceiverOptions> = {}) {
  const book = memoryPaymentBook();
  const handled = vi.fn<(event: PixEvent) => void>();
  const violations: Violation[] = [];
  const receiver = createReceiver({ secret, book, confirm: client, ...options } as ReceiverOptions)
    .onAny((event) => handled(event))
    .onViolation((violation) => void violations.push(violation));
  return { receiver, book, handled, violations };
}

describe('confirm: the gateway agrees before a money event runs', () => {
  it('the gateway agrees (same status, or further forward): handled, with no violation', async () => {
    const gateway = fakeGateway({ c1: { status: 'paid', amountInCents: 1000 }, c2: { status: 'refunded', amountInCents: 1000 } });
    const { receiver, handled, violations } = setup(gateway.client);
    expect((await receiver.receive(delivery('transaction_paid', { id: 'c1', amountInCents: 1000, endToEndId: e2e }))).status).toBe(200);
    expect((await receiver.receive(delivery('transaction_paid', { id: 'c2', amountInCents: 1000, endToEndId: e2e }))).reason).toBe(
      undefined,
    );
    expect(handled).toHaveBeenCalledTimes(2);
    expect(violations).toEqual([]);
    expect(gateway.reads).toEqual(['c1', 'c2']);
  });

  it.each([
    ['a different amount', { status: 'paid', amountInCents: 999 }],
    ['a status behind the event', { status: 'pending', amountInCents: 1000 }],
    ['a 404 (another merchant’s charge)', undefined],
  ])('%s is not_confirmed: held (200 held), handlers do not run, a person can release it', async (_, record) => {
    const gateway = fakeGateway(record === undefined ? {} : { c1: record });
    const { receiver, book, handled, violations } = setup(gateway.client);
    const result = await receiver.receive(delivery('transaction_paid', { id: 'c1', amountInCents: 1000, endToEndId: e2e }));
    expect([result.status, result.body]).toEqual([200, '{"ok":true,"reason":"held"}']);
    expect(handled).not.toHaveBeenCalled();
    expect(violations.map((violation) => [violation.reason, violation.action])).toEqual([['not_confirmed', 'hold']]);
    const [held] = await book.held();
    expect(await receiver.release(held!.heldId)).toEqual({ ok: true });
    expect(await receiver.release(held!.heldId)).toEqual({ ok: false, reason: 'already_released' });
    expect(handled).toHaveBeenCalledTimes(1);
  });

  it('policy not_confirmed: flag runs the handlers with the violation on the event', async () => {
    const gateway = fakeGateway({ c1: { status: 'pending', amountInCents: 1000 } });
    const { receiver, handled } = setup(gateway.client, { policy: { not_confirmed: 'flag' } });
    expect((await receiver.receive(delivery('transaction_paid', { id: 'c1', amountInCents: 1000, endToEndId: e2e }))).status).toBe(200);
    expect(handled.mock.calls[0]![0].violations?.map((violation) => violation.reason)).toEqual(['not_confirmed']);
  });

  it.each([
    ['a 5xx', new PixServerError({ status: 503, code: 'SERVER_ERROR', message: 'down' })],
    ['a 429', new PixRateLimitedError({ status: 429, code: 'RATE_LIMITED', message: 'slow down', retryAfter: 30 })],
    ['no answer', new TypeError('fetch failed')],
  ])(
    '%s: 503 gateway_unavailable with retry-after, nothing recorded; the retry is handled once when the gateway is back',
    async (_, error) => {
      const gateway = fakeGateway({ c1: error });
      const { receiver, book, handled } = setup(gateway.client, { retryAfterSeconds: 7 });
      const request = delivery('transaction_paid', { id: 'c1', amountInCents: 1000, endToEndId: e2e });
      const down = await receiver.receive(request);
      expect([down.status, down.reason, down.headers['retry-after']]).toEqual([503, 'gateway_unavailable', '7']);
      expect(JSON.parse(down.body)).toEqual({ error: 'gateway_unavailable', message: expect.stringMatching(/gateway/) });
      expect(down.body).not.toMatch(/down|slow|fetch/);
      expect(handled).not.toHaveBeenCalled();
      expect(await book.get('c1')).toBeUndefined();

      gateway.records['c1'] = { status: 'paid', amountInCents: 1000 };
      expect((await receiver.receive(request)).reason).toBeUndefined();
      expect((await receiver.receive(request)).reason).toBe('duplicate');
      expect(handled).toHaveBeenCalledTimes(1);
    },
  );

  it("no read while the client's last figures say none is left: 503 gateway_unavailable without a request", async () => {
    const gateway = fakeGateway({ c1: { status: 'paid', amountInCents: 1000 } });
    const client: ConfirmClient = {
      getTransaction: gateway.client.getTransaction,
      rateLimit: () => ({ operation: 'GET /api/v1/transactions/x', remaining: 0, resetAt: Date.now() + 60_000 }),
    };
    const { receiver } = setup(client);
    const result = await receiver.receive(delivery('transaction_paid', { id: 'c1', amountInCents: 1000, endToEndId: e2e }));
    expect([result.status, result.reason]).toEqual([503, 'gateway_unavailable']);
    expect(result.hint).toMatch(/rate limit/);
    expect(gateway.reads).toEqual([]);
  });

  it('reads money events only, never a reconciled one, and a read that hangs past timeoutMs is gateway_unavailable', async () => {
    const gateway = fakeGateway({ c1: { status: 'paid', amountInCents: 1000 } });
    const book = memoryPaymentBook();
    const processing = createProcessing({ book, confirm: { client: gateway.client, events: ['transaction_paid'] } });
    expect((await processing.accept(chargeEvent('transaction_created', { id: 'c1' }))).reason).toBeUndefined();
    expect((await processing.accept(chargeEvent('transaction_refunded', { id: 'c1' }))).reason).toBeUndefined();
    expect((await processing.accept(chargeEvent('transaction_paid', { id: 'c9' }, { source: 'reconcile' }))).reason).toBeUndefined();
    expect(gateway.reads).toEqual([]);

    const hanging: ConfirmClient = {
      getTransaction: (_id, options) =>
        new Promise((_, reject) => options?.signal?.addEventListener('abort', () => reject(options.signal!.reason as Error))),
    };
    const slow = createProcessing({ book: memoryPaymentBook(), confirm: { client: hanging, timeoutMs: 20 } });
    expect(await slow.accept(chargeEvent('transaction_paid', { id: 'c1' }))).toMatchObject({ reason: 'gateway_unavailable' });
  });

  it('a confirm read that ignores its abort signal is still bounded by timeoutMs: 503 gateway_unavailable, the claim given back', async () => {
    let reads = 0;
    // Never settles, whatever the signal says: only pixhook's own bound can end the delivery.
    const deaf: ConfirmClient = {
      getTransaction: () => {
        reads++;
        return new Promise(() => {});
      },
    };
    const processing = createProcessing({ book: memoryPaymentBook(), confirm: { client: deaf, timeoutMs: 20 } });
    const paid = chargeEvent('transaction_paid', { id: 'c1' });
    expect(await processing.accept(paid)).toMatchObject({ reason: 'gateway_unavailable' });
    // The retry is read again, not answered `in_flight`: the claim was given back.
    expect(await processing.accept(paid)).toMatchObject({ reason: 'gateway_unavailable' });
    expect(reads).toBe(2);
  });

  it('a transfer_completed is read too: the gateway agrees on completed, disagrees on processing', async () => {
    const gateway = fakeGateway({ t1: { status: 'completed', amountInCents: 5000 }, t2: { status: 'processing', amountInCents: 5000 } });
    const book = memoryPaymentBook();
    const processing = createProcessing({ book, confirm: gateway.client });
    expect((await processing.accept(transferEvent('transfer_completed', { id: 't1' }))).reason).toBeUndefined();
    expect(await processing.accept(transferEvent('transfer_completed', { id: 't2' }))).toMatchObject({ reason: 'held' });
    expect(gateway.reads).toEqual(['t1', 't2']);
  });

  it('gatewayAgrees: equal amount, and the same status or further forward', () => {
    const paid = chargeEvent('transaction_paid', { id: 'c1' });
    expect(gatewayAgrees(paid, { status: 'paid', amountInCents: 1000 })).toBe(true);
    expect(gatewayAgrees(paid, { status: 'refunded', amountInCents: 1000 })).toBe(true);
    expect(gatewayAgrees(paid, { status: 'pending', amountInCents: 1000 })).toBe(false);
    expect(gatewayAgrees(paid, { status: 'canceled', amountInCents: 1000 })).toBe(false);
    expect(gatewayAgrees(paid, { status: 'paid', amountInCents: undefined })).toBe(false);
    expect(gatewayAgrees(paid, { status: 'mystery', amountInCents: 1000 })).toBe(false);
    const refunded = chargeEvent('transaction_refunded', { id: 'c1' });
    expect(gatewayAgrees(refunded, { status: 'paid', amountInCents: 1000 })).toBe(false);
  });
});
