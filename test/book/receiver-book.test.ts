import { describe, expect, it, vi } from 'vitest';
import {
  createProcessing,
  createReceiver,
  memoryDedupeStore,
  memoryPaymentBook,
  PixhookConfigError,
  type PaymentBook,
  type PixEvent,
  type ReceiverOptions,
  type Violation,
} from '../../src/index.js';
import { buildPayload, type PayloadOptions } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_book_wiring';
const e2eA = 'E12345678202605011200aaaaaaaaaaa';
const e2eB = 'E12345678202605011300bbbbbbbbbbb';

function delivery(name: Parameters<typeof buildPayload>[0], options: PayloadOptions) {
  const bytes = bytesOf(buildPayload(name, { variant: 'b', seed: 1, ...options }));
  return { method: 'POST', headers: { 'x-signature': signBytes(bytes, secret) }, body: bytes };
}

function setup(options: Partial<ReceiverOptions> = {}, book: PaymentBook = memoryPaymentBook()) {
  const paid = vi.fn<(event: PixEvent) => void>();
  const any = vi.fn<(event: PixEvent) => void>();
  const violations: [Violation, PixEvent][] = [];
  const receiver = createReceiver({ secret, book, ...options } as ReceiverOptions)
    .on('transaction_paid', (event) => paid(event))
    .onAny((event) => any(event))
    .onViolation((violation, event) => void violations.push([violation, event]));
  return { receiver, book, paid, any, violations };
}

const answer = async (receiver: ReturnType<typeof setup>['receiver'], request: ReturnType<typeof delivery>) => {
  const result = await receiver.receive(request);
  return { status: result.status, reason: result.reason, body: result.body };
};

describe('createReceiver({ book }): the payment book before any named handler', () => {
  it('amount mismatch: held (200 held) → retry 200 held → release runs the handler once → retry duplicate', async () => {
    const { receiver, book, paid, violations } = setup();
    await book.expect({ id: 'c1', amountInCents: 1000 });
    const wrong = delivery('transaction_paid', { id: 'c1', amountInCents: 900, endToEndId: e2eA });

    expect(await answer(receiver, wrong)).toEqual({ status: 200, reason: 'held', body: '{"ok":true,"reason":"held"}' });
    expect(paid).not.toHaveBeenCalled();
    expect(violations.map(([violation]) => [violation.reason, violation.action])).toEqual([['amount_mismatch', 'hold']]);
    expect(await answer(receiver, wrong)).toMatchObject({ status: 200, reason: 'held' });
    // The copy through the registered webhook is the same fact: the same hold, never a second one.
    const copy = delivery('transaction_paid', { id: 'c1', amountInCents: 900, endToEndId: e2eA, scope: 'user', deliveryId: 'other' });
    expect(await answer(receiver, copy)).toMatchObject({ status: 200, reason: 'held' });
    const held = await book.held();
    expect(held).toHaveLength(1);
    expect((await book.get('c1'))!.timeline.map((entry) => [entry.outcome, entry.channel])).toEqual([
      ['held', 'postback'],
      ['duplicate_hold', 'postback'],
      ['duplicate_hold', 'user'],
    ]);

    expect(await receiver.release(held[0]!.heldId)).toEqual({ ok: true });
    expect(paid).toHaveBeenCalledTimes(1);
    expect(paid.mock.calls[0]![0].violations?.map((violation) => violation.reason)).toEqual(['amount_mismatch']);
    expect(await receiver.release(held[0]!.heldId)).toEqual({ ok: false, reason: 'already_released' });
    expect(await answer(receiver, wrong)).toMatchObject({ status: 200, reason: 'duplicate' });
    expect(paid).toHaveBeenCalledTimes(1);
    expect((await book.get('c1'))!.status).toBe('paid');
    expect(violations).toHaveLength(1);
  });

  it('a release hands the handlers `raw` (the same object as `payload`), also for an event held before `raw` was stored', async () => {
    const memory = memoryPaymentBook();
    // The book as an older version left it: the held event's JSON has no `raw`.
    const book: PaymentBook = {
      ...memory,
      async claimRelease(heldId) {
        const claim = await memory.claimRelease(heldId);
        if (!claim.ok) return claim;
        const { raw: _raw, ...older } = claim.held.event;
        return { ...claim, held: { ...claim.held, event: older as PixEvent } };
      },
    };
    const { receiver, paid } = setup({}, book);
    await memory.expect({ id: 'c9', amountInCents: 1000 });
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c9', amountInCents: 900, endToEndId: e2eA }))).toMatchObject({
      reason: 'held',
    });
    const [held] = await memory.held();
    expect(held!.event.raw).toBe(held!.event.payload);
    expect(await receiver.release(held!.heldId)).toEqual({ ok: true });
    const event = paid.mock.calls[0]![0];
    expect(event.raw).toBe(event.payload);
    expect(event.raw).toMatchObject({ event: 'transaction_paid' });
  });

  it('payer mismatch is held; a dismissed hold answers duplicate and never runs', async () => {
    const { receiver, book, paid } = setup();
    await book.expect({ id: 'c2', amountInCents: 1000, payerDocument: '529.982.247-25' });
    const other = delivery('transaction_paid', {
      id: 'c2',
      amountInCents: 1000,
      endToEndId: e2eA,
      payer: { name: 'Someone Else', document: '11144477735' },
    });
    expect(await answer(receiver, other)).toMatchObject({ status: 200, reason: 'held' });
    const [held] = await book.held();
    expect(held!.violations.map((violation) => violation.reason)).toEqual(['payer_mismatch']);
    expect(await book.dismiss(held!.heldId, 'refunded by hand')).toEqual({ ok: true });
    expect(await answer(receiver, other)).toMatchObject({ status: 200, reason: 'duplicate' });
    expect(await receiver.release(held!.heldId)).toEqual({ ok: false, reason: 'dismissed' });
    expect(await receiver.release('held_nope')).toEqual({ ok: false, reason: 'not_found' });
    expect(paid).not.toHaveBeenCalled();
  });

  it('the right payer, in any formatting, passes', async () => {
    const { receiver, book, paid } = setup();
    await book.expect({ id: 'c2b', amountInCents: 1000, payerDocument: '529.982.247-25' });
    const right = delivery('transaction_paid', { id: 'c2b', amountInCents: 1000, payer: { name: 'P', document: '52998224725' } });
    expect(await answer(receiver, right)).toMatchObject({ status: 200, reason: undefined });
    expect(paid).toHaveBeenCalledTimes(1);
    expect(paid.mock.calls[0]![0].violations).toBeUndefined();
  });

  it('stale status: paid after refunded is held', async () => {
    const { receiver, paid, any, violations } = setup();
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c3', amountInCents: 1000, endToEndId: e2eA }))).toMatchObject({
      status: 200,
      reason: undefined,
    });
    await answer(receiver, delivery('transaction_refunded', { id: 'c3', amountInCents: 1000 }));
    const late = delivery('transaction_updated', { id: 'c3', amountInCents: 1000, status: 'paid', endToEndId: e2eB });
    expect(await answer(receiver, late)).toMatchObject({ status: 200, reason: 'held' });
    expect(violations.map(([violation]) => violation.reason)).toContain('stale_status');
    expect(paid).toHaveBeenCalledTimes(1);
    // onAny heard paid and refunded, never the held late paid.
    expect(any.mock.calls.map(([event]) => event.name)).toEqual(['transaction_paid', 'transaction_refunded']);
  });

  it('duplicate payment: a second paid event with another endToEndId reaches the book and is held', async () => {
    const { receiver, book, paid } = setup();
    await answer(receiver, delivery('transaction_paid', { id: 'c4', amountInCents: 1000, endToEndId: e2eA }));
    const second = delivery('transaction_paid', { id: 'c4', amountInCents: 1000, endToEndId: e2eB });
    expect(await answer(receiver, second)).toMatchObject({ status: 200, reason: 'held' });
    expect((await book.held())[0]!.violations.map((violation) => violation.reason)).toEqual(['duplicate_payment']);
    expect(paid).toHaveBeenCalledTimes(1);
  });

  it('unknown charge: flagged once expectations exist (handlers run with event.violations)', async () => {
    const { receiver, book, paid, violations } = setup();
    await answer(receiver, delivery('transaction_paid', { id: 'before', amountInCents: 1000 }));
    expect(paid.mock.calls[0]![0].violations).toBeUndefined();
    await book.expect({ id: 'expected', amountInCents: 1000 });
    expect(await answer(receiver, delivery('transaction_paid', { id: 'stranger', amountInCents: 1000 }))).toMatchObject({
      status: 200,
      reason: undefined,
    });
    expect(paid).toHaveBeenCalledTimes(2);
    expect(paid.mock.calls[1]![0].violations).toEqual([expect.objectContaining({ reason: 'unknown_charge', action: 'flag' })]);
    expect(violations).toHaveLength(1);
    expect(violations[0]![1].violations).toEqual(paid.mock.calls[1]![0].violations);
  });

  it('a policy turns a hold into a flag, and a flag into a hold', async () => {
    const { receiver, book, paid } = setup({ policy: { amount_mismatch: 'flag', unknown_charge: 'hold' } });
    await book.expect({ id: 'c5', amountInCents: 1000 });
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c5', amountInCents: 1 }))).toMatchObject({ reason: undefined });
    expect(paid.mock.calls[0]![0].violations).toEqual([expect.objectContaining({ reason: 'amount_mismatch', action: 'flag' })]);
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c6', amountInCents: 1 }))).toMatchObject({ reason: 'held' });
  });

  it('a handler failing on release answers handler_failed, tells onError, and the event stays held', async () => {
    const book = memoryPaymentBook();
    const errors = vi.fn();
    let fail = true;
    const receiver = createReceiver({ secret, book })
      .on('transaction_paid', () => {
        if (fail) throw new Error('ledger down');
      })
      .onError(errors);
    await book.expect({ id: 'c7', amountInCents: 1000 });
    const wrong = delivery('transaction_paid', { id: 'c7', amountInCents: 5 });
    expect(await answer(receiver, wrong)).toMatchObject({ reason: 'held' });
    const [held] = await book.held();
    expect(await receiver.release(held!.heldId)).toEqual({ ok: false, reason: 'handler_failed' });
    expect(errors).toHaveBeenCalledTimes(1);
    expect((await book.held()).map((entry) => [entry.heldId, entry.state])).toEqual([[held!.heldId, 'held']]);
    expect(await answer(receiver, wrong)).toMatchObject({ reason: 'held' });
    fail = false;
    expect(await receiver.release(held!.heldId)).toEqual({ ok: true });
    expect(await book.held()).toEqual([]);
  });

  it('release across two receivers sharing one book and one store runs once (concurrent calls)', async () => {
    const book = memoryPaymentBook();
    const store = memoryDedupeStore();
    const ran = vi.fn();
    const make = () =>
      createReceiver({ secret, book, store }).on('transaction_paid', async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        ran();
      });
    const [a, b] = [make(), make()];
    await book.expect({ id: 'c8', amountInCents: 1000 });
    const wrong = delivery('transaction_paid', { id: 'c8', amountInCents: 2 });
    expect(await answer(a, wrong)).toMatchObject({ reason: 'held' });
    expect(await answer(b, wrong)).toMatchObject({ reason: 'held' });
    const [held] = await book.held();
    const results = await Promise.all([a.release(held!.heldId), b.release(held!.heldId), a.release(held!.heldId)]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok)).toEqual([
      { ok: false, reason: 'already_released' },
      { ok: false, reason: 'already_released' },
    ]);
    expect(ran).toHaveBeenCalledTimes(1);
    expect(await answer(b, wrong)).toMatchObject({ reason: 'duplicate' });
    expect(await answer(a, wrong)).toMatchObject({ reason: 'duplicate' });
  });

  it('an onViolation handler that throws or rejects does not change the answer', async () => {
    const { receiver, book } = setup();
    receiver.onViolation(() => {
      throw new Error('alerting down');
    });
    receiver.onViolation(() => Promise.reject(new Error('alerting down')));
    await book.expect({ id: 'c9', amountInCents: 1000 });
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c9', amountInCents: 3 }))).toMatchObject({ reason: 'held' });
    expect(await receiver.drain()).toBe(true);
  });

  it('background mode: a hold answers held and queues nothing; a flag reaches the handler', async () => {
    const { receiver, book, paid } = setup({ mode: 'background' });
    await book.expect({ id: 'c10', amountInCents: 1000 });
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c10', amountInCents: 3 }))).toMatchObject({ reason: 'held' });
    expect(await answer(receiver, delivery('transaction_paid', { id: 'c11', amountInCents: 3 }))).toMatchObject({ reason: undefined });
    await receiver.drain();
    expect(paid).toHaveBeenCalledTimes(1);
    expect(paid.mock.calls[0]![0].violations).toEqual([expect.objectContaining({ reason: 'unknown_charge' })]);
  });
});

describe('createReceiver({ book, policy }): refusals', () => {
  const refusal = (options: Record<string, unknown>) => {
    try {
      createReceiver({ secret, ...options } as ReceiverOptions);
    } catch (error) {
      expect(error).toBeInstanceOf(PixhookConfigError);
      expect((error as PixhookConfigError).code).toBe('config_invalid');
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it('refuses `policy`, `confirm` or `disputeAlertMs` without a book', () => {
    expect(refusal({ policy: { amount_mismatch: 'flag' } })).toMatch(/^pixhook: `policy` needs a `book`/);
    expect(refusal({ confirm: {} })).toMatch(/^pixhook: `confirm` needs a `book`/);
    expect(refusal({ disputeAlertMs: 1000 })).toMatch(/^pixhook: `disputeAlertMs` needs a `book`/);
  });

  it('refuses an unknown policy key or value, a book that is not one, and a confirm or disputeAlertMs that cannot work', () => {
    const book = memoryPaymentBook();
    expect(refusal({ book, policy: { amount_mismatc: 'hold' } })).toMatch(/^pixhook: `policy` keys must be reason codes/);
    expect(refusal({ book, policy: { stale_status: 'ignore' } })).toMatch(/^pixhook: `policy.stale_status` must be "hold" or "flag"/);
    expect(refusal({ book, policy: { dispute_deadline: 'hold' } })).toMatch(/dispute_deadline/);
    expect(refusal({ book, policy: 'strict' })).toMatch(/^pixhook: `policy` must be an object/);
    expect(refusal({ book: {} })).toMatch(/^pixhook: `book` must be a payment book/);
    expect(refusal({ book, confirm: {} })).toMatch(/^pixhook: `confirm.client.getTransaction` must be a function/);
    expect(refusal({ book, confirm: 'yes' })).toMatch(/^pixhook: `confirm` must be a pixhook\/client client/);
    const client = { getTransaction: async () => ({ status: 'paid', amountInCents: 1 }) };
    expect(refusal({ book, confirm: { client, timeoutMs: 0 } })).toMatch(/^pixhook: `confirm.timeoutMs` must be an integer from 1/);
    expect(refusal({ book, confirm: { client, events: ['transaction_created'] } })).toMatch(/^pixhook: `confirm.events` must be/);
    expect(refusal({ book, disputeAlertMs: -1 })).toMatch(/^pixhook: `disputeAlertMs` must be an integer from 1/);
    expect(refusal({ book, disputeAlertMs: '7d' })).toMatch(/^pixhook: `disputeAlertMs` must be an integer/);
  });

  it('refuses onViolation and release without a book, and book/policy given beside a shared processing', async () => {
    const receiver = createReceiver({ secret });
    expect(() => receiver.onViolation(() => undefined)).toThrow(PixhookConfigError);
    await expect(receiver.release('held_1')).rejects.toThrow(/`release` needs a `book`/);
    const processing = createProcessing({ book: memoryPaymentBook() });
    expect(refusal({ processing, book: memoryPaymentBook() })).toMatch(/^pixhook: `book` is ignored when `processing` is given/);
    expect(refusal({ processing, policy: {} })).toMatch(/^pixhook: `policy` is ignored when `processing` is given/);
    expect(refusal({ processing, confirm: {} })).toMatch(/^pixhook: `confirm` is ignored when `processing` is given/);
    expect(refusal({ processing, disputeAlertMs: 5 })).toMatch(/^pixhook: `disputeAlertMs` is ignored when `processing` is given/);
  });
});
