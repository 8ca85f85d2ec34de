import { describe, expect, it } from 'vitest';
import { PixhookConfigError, PixhookError } from '../../src/index.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import { checkPolicy } from '../../src/book/payment-policy.js';
import { chargeEvent, transferEvent } from './book-events.js';

const t0 = Date.parse('2026-05-01T12:00:00Z');
const clock = () => {
  let now = t0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe('memoryPaymentBook: the book of a resource', () => {
  it('answers every method with a promise', () => {
    const book = memoryPaymentBook();
    const calls = [
      book.get('x'),
      book.expect({ id: 'x', amountInCents: 1 }),
      book.held(),
      book.dismiss('none', 'n'),
      book.disputes(),
      book.record(chargeEvent('transaction_created', { id: 'y' }), { dedupeKey: 'k' }),
      book.claimRelease('none'),
      book.finishRelease('none', true),
    ];
    for (const call of calls) expect(call).toBeInstanceOf(Promise);
    return Promise.all(calls);
  });

  it('keeps the latest status and amount and a timeline of every event with its channel, delivery id, time and outcome', async () => {
    const { now } = clock();
    const book = memoryPaymentBook({ now });
    expect(await book.get('c1')).toBeUndefined();
    await book.record(chargeEvent('transaction_created', { id: 'c1' }, { deliveryId: 'd1' }), { dedupeKey: 'k1' });
    await book.record(chargeEvent('transaction_paid', { id: 'c1' }, { scope: 'user' }), { dedupeKey: 'k2' });
    await book.record(chargeEvent('transaction_refunded', { id: 'c1' }, { source: 'reconcile' }), { dedupeKey: 'k3', at: t0 + 5 });
    // A second, partial refund (another amount): another fact, applied.
    await book.record(chargeEvent('transaction_refunded', { id: 'c1', refund: { amountInCents: 500 } }, { source: 'replay' }), {
      dedupeKey: 'k4',
      channel: 'replay',
      deliveryId: 'r1',
    });
    expect(await book.get('c1')).toEqual({
      id: 'c1',
      kind: 'transaction',
      status: 'refunded',
      amountInCents: 1000,
      disputes: [],
      timeline: [
        {
          name: 'transaction_created',
          status: 'pending',
          amountInCents: 1000,
          channel: 'postback',
          deliveryId: 'd1',
          at: '2026-05-01T12:00:00.000Z',
          outcome: 'apply',
          reasons: [],
        },
        {
          name: 'transaction_paid',
          status: 'paid',
          amountInCents: 1000,
          channel: 'user',
          at: '2026-05-01T12:00:00.000Z',
          outcome: 'apply',
          reasons: [],
        },
        {
          name: 'transaction_refunded',
          status: 'refunded',
          amountInCents: 1000,
          channel: 'reconcile',
          at: '2026-05-01T12:00:00.005Z',
          outcome: 'apply',
          reasons: [],
        },
        {
          name: 'transaction_refunded',
          status: 'refunded',
          amountInCents: 1000,
          channel: 'replay',
          deliveryId: 'r1',
          at: '2026-05-01T12:00:00.000Z',
          outcome: 'apply',
          reasons: [],
        },
      ],
    });
  });

  it('keeps a charge and a transfer with one id apart; get prefers the charge', async () => {
    const book = memoryPaymentBook();
    await book.record(transferEvent('transfer_completed', { id: 'same' }), { dedupeKey: 'a' });
    expect((await book.get('same'))?.kind).toBe('transfer');
    await book.record(chargeEvent('transaction_created', { id: 'same' }), { dedupeKey: 'b' });
    expect(await book.get('same')).toMatchObject({ kind: 'transaction', status: 'pending' });
  });

  it('returns copies: changing an answer does not change the book', async () => {
    const book = memoryPaymentBook();
    await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'k' });
    const first = await book.get('c');
    first?.timeline.push(first.timeline[0]!);
    first!.status = 'refunded';
    expect(await book.get('c')).toMatchObject({ status: 'paid', timeline: [{ name: 'transaction_paid' }] });
  });

  it('moves status only forward, for transfers too, and holds the stale event', async () => {
    const book = memoryPaymentBook();
    await book.record(transferEvent('transfer_completed', { id: 't' }), { dedupeKey: 'k1' });
    const stale = await book.record(transferEvent('transfer_updated', { id: 't' }), { dedupeKey: 'k2' });
    expect(stale).toMatchObject({ outcome: 'held', violations: [{ reason: 'stale_status', action: 'hold' }] });
    expect(await book.get('t')).toMatchObject({ status: 'completed' });
  });

  it('a flagged violation applies and is on the timeline', async () => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'other', amountInCents: 5 });
    const result = await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'k' });
    expect(result).toEqual({ outcome: 'apply', violations: [{ reason: 'unknown_charge', action: 'flag', message: expect.any(String) }] });
    expect(await book.get('c')).toMatchObject({ status: 'paid', timeline: [{ outcome: 'apply', reasons: ['unknown_charge'] }] });
  });

  it('uses the policy given with the event', async () => {
    const book = memoryPaymentBook();
    await book.record(chargeEvent('transaction_refunded', { id: 'c' }), { dedupeKey: 'k1' });
    const result = await book.record(chargeEvent('transaction_paid', { id: 'c' }), {
      dedupeKey: 'k2',
      policy: checkPolicy({ stale_status: 'flag' }),
    });
    expect(result).toMatchObject({ outcome: 'apply', violations: [{ reason: 'stale_status', action: 'flag' }] });
    expect(await book.get('c')).toMatchObject({ status: 'refunded' });
  });

  it('holds not_confirmed when the pipeline says the gateway contradicted the event', async () => {
    const book = memoryPaymentBook();
    const result = await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'k', confirmed: false });
    expect(result).toMatchObject({ outcome: 'held', violations: [{ reason: 'not_confirmed' }] });
    expect(await book.get('c')).toMatchObject({ status: 'pending', amountInCents: 1000, timeline: [{ outcome: 'held' }] });
  });

  it('dates an entry by the book clock when the given time is not a number', async () => {
    const book = memoryPaymentBook({ now: () => t0 });
    await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'k', at: Number.NaN });
    expect((await book.get('c'))?.timeline[0]?.at).toBe('2026-05-01T12:00:00.000Z');
  });

  it('refuses a record without a dedupe key', async () => {
    const book = memoryPaymentBook();
    await expect(book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: '' })).rejects.toThrow(
      /`dedupeKey` must be a non-empty string/,
    );
  });
});

describe('memoryPaymentBook: expectations', () => {
  it('stores the document as digits and the expiry as ISO 8601; checks each payment against them', async () => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'c', amountInCents: 1000, payerDocument: '123.456.789-09', expiresAt: new Date('2026-05-02T00:00:00Z') });
    expect(await book.get('c')).toEqual({
      id: 'c',
      kind: 'transaction',
      status: 'pending',
      amountInCents: 1000,
      expected: { amountInCents: 1000, payerDocument: '12345678909', expiresAt: '2026-05-02T00:00:00.000Z' },
      timeline: [],
      disputes: [],
    });
    const wrongPayer = chargeEvent(
      'transaction_paid',
      { id: 'c', payer: { document: '98765432100' } },
      { timestamp: '2026-05-01T00:00:00Z' },
    );
    expect(await book.record(wrongPayer, { dedupeKey: 'k1' })).toMatchObject({
      outcome: 'held',
      violations: [{ reason: 'payer_mismatch' }],
    });
    const rightPayer = chargeEvent(
      'transaction_paid',
      { id: 'c', payer: { document: '12345678909' }, endToEndId: 'E2' },
      { timestamp: '2026-05-01T00:00:00Z' },
    );
    expect(await book.record(rightPayer, { dedupeKey: 'k2' })).toEqual({ outcome: 'apply', violations: [] });
  });

  it('holds amount_mismatch and applies nothing', async () => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'c', amountInCents: 1000 });
    expect(await book.record(chargeEvent('transaction_paid', { id: 'c', amountInCents: 1 }), { dedupeKey: 'k' })).toMatchObject({
      outcome: 'held',
      violations: [{ reason: 'amount_mismatch', action: 'hold' }],
    });
    expect(await book.get('c')).toMatchObject({ status: 'pending', amountInCents: 1000 });
  });

  it.each([
    [{ id: '', amountInCents: 1 }, /`id` must be a non-empty string/],
    [{ id: 'c', amountInCents: 0 }, /`amountInCents` must be a positive integer/],
    [{ id: 'c', amountInCents: 10.5 }, /`amountInCents` must be a positive integer/],
    [{ id: 'c', amountInCents: 1, payerDocument: '123' }, /`payerDocument` must be a CPF \(11 digits\) or CNPJ \(14 digits\)/],
    [{ id: 'c', amountInCents: 1, expiresAt: 'tomorrow' }, /`expiresAt` must be a Date, an ISO 8601 string or epoch milliseconds/],
  ])('rejects %j with validation_failed', async (charge, message) => {
    const book = memoryPaymentBook();
    const failure = await book.expect(charge).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PixhookError);
    expect((failure as PixhookError).code).toBe('validation_failed');
    expect((failure as Error).message).toMatch(message);
  });
});

describe('memoryPaymentBook: held events', () => {
  async function heldPayment() {
    const book = memoryPaymentBook();
    await book.record(chargeEvent('transaction_created', { id: 'c' }), { dedupeKey: 'created' });
    const result = await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }, { deliveryId: 'd1' }), {
      dedupeKey: 'paid',
      confirmed: false,
    });
    if (result.outcome !== 'held') throw new Error('expected a hold');
    return { book, heldId: result.heldId };
  }

  it('lists a held event with its own id, the event and its violations', async () => {
    const { book, heldId } = await heldPayment();
    expect(heldId).toMatch(/^held_[0-9a-f-]{36}$/);
    expect(await book.held()).toEqual([
      {
        heldId,
        resourceId: 'c',
        kind: 'transaction',
        dedupeKey: 'paid',
        event: chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }, { deliveryId: 'd1' }),
        violations: [{ reason: 'not_confirmed', action: 'hold', message: expect.any(String) }],
        channel: 'postback',
        deliveryId: 'd1',
        heldAt: expect.any(String),
        state: 'held',
      },
    ]);
  });

  it("a sender's retry, or the copy on the other channel, is duplicate_hold: never a second hold", async () => {
    const { book, heldId } = await heldPayment();
    const retry = await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'paid' });
    const copy = await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }, { scope: 'user' }), {
      dedupeKey: 'paid',
    });
    expect(retry).toMatchObject({ outcome: 'duplicate_hold', heldId, violations: [{ reason: 'not_confirmed' }] });
    expect(copy).toMatchObject({ outcome: 'duplicate_hold', heldId });
    expect(await book.held()).toHaveLength(1);
    expect((await book.get('c'))?.timeline.map((entry) => `${entry.outcome}/${entry.channel}`)).toEqual([
      'apply/postback',
      'held/postback',
      'duplicate_hold/postback',
      'duplicate_hold/user',
    ]);
  });

  it('a release runs exactly once: one claim wins, the others hear already_released', async () => {
    const { book, heldId } = await heldPayment();
    const claims = await Promise.all([book.claimRelease(heldId), book.claimRelease(heldId), book.claimRelease(heldId)]);
    expect(claims.filter((claim) => claim.ok)).toHaveLength(1);
    expect(claims.filter((claim) => !claim.ok).map((claim) => !claim.ok && claim.reason)).toEqual(['already_released', 'already_released']);
    expect(await book.held()).toMatchObject([{ heldId, state: 'releasing' }]);
    expect(await book.dismiss(heldId, 'too late')).toEqual({ ok: false, reason: 'already_released' });
    expect(await book.finishRelease(heldId, true)).toBe(true);
    expect(await book.finishRelease(heldId, true)).toBe(false);
    expect(await book.claimRelease(heldId)).toEqual({ ok: false, reason: 'already_released' });
    expect(await book.held()).toEqual([]);
    // Released: applied to the book, forward only, and on the timeline.
    expect(await book.get('c')).toMatchObject({
      status: 'paid',
      timeline: [{ outcome: 'apply' }, { outcome: 'held' }, { outcome: 'released', heldId }],
    });
  });

  it("a released payment counts as the charge's payment: another one is a duplicate_payment", async () => {
    const { book, heldId } = await heldPayment();
    await book.claimRelease(heldId);
    await book.finishRelease(heldId, true);
    const second = await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E2' }), { dedupeKey: 'paid-2' });
    expect(second).toMatchObject({ outcome: 'held', violations: [{ reason: 'duplicate_payment' }] });
  });

  it('a failed release puts the event back to held, to be released again', async () => {
    const { book, heldId } = await heldPayment();
    expect(await book.claimRelease(heldId)).toMatchObject({ ok: true, held: { heldId, state: 'releasing' } });
    expect(await book.finishRelease(heldId, false)).toBe(true);
    expect(await book.held()).toMatchObject([{ heldId, state: 'held' }]);
    expect(await book.get('c')).toMatchObject({ status: 'pending', timeline: [{}, {}, { outcome: 'release_failed' }] });
    expect(await book.claimRelease(heldId)).toMatchObject({ ok: true });
  });

  it('dismiss closes a held event without applying it; then release and dismiss hear dismissed', async () => {
    const { book, heldId } = await heldPayment();
    expect(await book.dismiss(heldId, 'forged: the gateway has no such payment')).toEqual({ ok: true });
    expect(await book.held()).toEqual([]);
    expect(await book.dismiss(heldId, 'again')).toEqual({ ok: false, reason: 'dismissed' });
    expect(await book.claimRelease(heldId)).toEqual({ ok: false, reason: 'dismissed' });
    expect(await book.get('c')).toMatchObject({ status: 'pending', timeline: [{}, {}, { outcome: 'dismissed', heldId }] });
  });

  it('not_found for an id the book never gave', async () => {
    const { book } = await heldPayment();
    expect(await book.dismiss('held_nope', 'n')).toEqual({ ok: false, reason: 'not_found' });
    expect(await book.claimRelease('held_nope')).toEqual({ ok: false, reason: 'not_found' });
    expect(await book.finishRelease('held_nope', true)).toBe(false);
  });

  it('refuses a note that is not a string or is too long', async () => {
    const { book, heldId } = await heldPayment();
    await expect(book.dismiss(heldId, 'x'.repeat(2001))).rejects.toThrow(/`note` must be a string of at most 2000 characters/);
    await expect(book.dismiss(heldId, 42 as never)).rejects.toThrow(/`note`/);
    expect(await book.held()).toHaveLength(1);
  });

  it('a retry after the hold was dismissed is judged again (the dedupe store answers duplicate before the book)', async () => {
    const { book, heldId } = await heldPayment();
    await book.dismiss(heldId, 'n');
    const again = await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), {
      dedupeKey: 'paid',
      confirmed: false,
    });
    expect(again.outcome).toBe('held');
    expect(again.outcome === 'held' && again.heldId).not.toBe(heldId);
  });
});

describe('memoryPaymentBook: disputes', () => {
  it('a transaction_infraction opens a dispute; the charge keeps its status; a closing status closes it', async () => {
    const time = clock();
    const book = memoryPaymentBook({ now: time.now });
    await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' });
    const infraction = { id: 'med_1', status: 'open', reason: 'fraud', amountInCents: 1000, openedAt: '2026-05-01T11:00:00Z' };
    expect(await book.record(chargeEvent('transaction_infraction', { id: 'c', infraction }), { dedupeKey: 'i1' })).toEqual({
      outcome: 'apply',
      violations: [],
    });
    time.advance(60_000);
    const opened = {
      resourceId: 'c',
      id: 'med_1',
      status: 'open',
      reason: 'fraud',
      amountInCents: 1000,
      openedAt: '2026-05-01T11:00:00.000Z',
      open: true,
    };
    expect(await book.get('c')).toMatchObject({ status: 'paid', disputes: [opened] });
    expect(await book.disputes({ open: true })).toEqual([{ ...opened, ageMs: 3_660_000 }]);
    await book.record(chargeEvent('transaction_infraction', { id: 'c', infraction: { id: 'med_1', status: 'CLOSED' } }), {
      dedupeKey: 'i2',
    });
    expect(await book.disputes({ open: true })).toEqual([]);
    expect(await book.disputes({ open: false })).toMatchObject([{ id: 'med_1', status: 'CLOSED', reason: 'fraud', open: false }]);
    expect(await book.disputes()).toHaveLength(1);
  });

  it('a dispute without an opening time dates from when the book saw it; one without an id is matched by openedAt', async () => {
    const book = memoryPaymentBook({ now: () => t0 });
    await book.record(chargeEvent('transaction_infraction', { id: 'c', infraction: {} }), { dedupeKey: 'i1' });
    await book.record(chargeEvent('transaction_infraction', { id: 'c', infraction: { status: 'resolved' } }), { dedupeKey: 'i2' });
    expect(await book.disputes()).toEqual([
      { resourceId: 'c', openedAt: '2026-05-01T12:00:00.000Z', status: 'resolved', open: false, ageMs: 0 },
    ]);
  });
});

describe('memoryPaymentBook: bounded', () => {
  it('evicts the least recently written resources beyond max', async () => {
    const book = memoryPaymentBook({ max: 3 });
    for (const id of ['a', 'b', 'c']) await book.record(chargeEvent('transaction_created', { id }), { dedupeKey: id });
    await book.record(chargeEvent('transaction_paid', { id: 'a' }), { dedupeKey: 'a2' }); // a is now the newest
    await book.record(chargeEvent('transaction_created', { id: 'd' }), { dedupeKey: 'd' });
    expect(book.size).toBe(3);
    expect(await book.get('b')).toBeUndefined();
    expect(await book.get('a')).toMatchObject({ status: 'paid' });
    for (let i = 0; i < 100; i++) await book.record(chargeEvent('transaction_created', { id: `x${i}` }), { dedupeKey: `x${i}` });
    expect(book.size).toBe(3);
  });

  it('never loses an open held event, and keeps its hold for retries, when its resource is evicted', async () => {
    const book = memoryPaymentBook({ max: 1 });
    const held = await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p', confirmed: false });
    for (let i = 0; i < 5; i++) await book.record(chargeEvent('transaction_created', { id: `x${i}` }), { dedupeKey: `x${i}` });
    expect(await book.get('c')).toBeUndefined();
    expect(await book.held()).toMatchObject([{ resourceId: 'c', dedupeKey: 'p' }]);
    expect(await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' })).toMatchObject({
      outcome: 'duplicate_hold',
      heldId: held.outcome === 'held' ? held.heldId : 'none',
    });
  });

  it('keeps a resource with an open dispute beyond max, and lets it go once the dispute closes', async () => {
    const book = memoryPaymentBook({ max: 1 });
    await book.record(chargeEvent('transaction_infraction', { id: 'c', infraction: { id: 'm' } }), { dedupeKey: 'i' });
    await book.record(chargeEvent('transaction_created', { id: 'x' }), { dedupeKey: 'x' });
    expect(book.size).toBe(2);
    expect(await book.disputes({ open: true })).toMatchObject([{ resourceId: 'c', id: 'm' }]);
    await book.record(chargeEvent('transaction_infraction', { id: 'c', infraction: { id: 'm', status: 'closed' } }), { dedupeKey: 'i2' });
    await book.record(chargeEvent('transaction_created', { id: 'y' }), { dedupeKey: 'y' });
    expect(book.size).toBe(1);
    expect(await book.disputes()).toEqual([]);
  });

  it('bounds closed held events to max, and each timeline to maxTimeline', async () => {
    const book = memoryPaymentBook({ max: 2, maxTimeline: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const result = await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: `p${i}`, confirmed: false });
      if (result.outcome === 'held') ids.push(result.heldId);
      await book.dismiss(ids[i]!, 'n');
    }
    expect(await book.dismiss(ids[0]!, 'n')).toEqual({ ok: false, reason: 'not_found' });
    expect(await book.dismiss(ids[3]!, 'n')).toEqual({ ok: false, reason: 'dismissed' });
    const timeline = (await book.get('c'))?.timeline ?? [];
    expect(timeline).toHaveLength(3);
    expect(timeline.at(-1)).toMatchObject({ outcome: 'dismissed', heldId: ids[3] });
  });

  it.each([
    [{ max: 0 }, /`max` must be an integer from 1/],
    [{ max: 1.5 }, /`max` must be an integer/],
    [{ maxTimeline: -1 }, /`maxTimeline` must be an integer from 1/],
    [{ now: 5 }, /`now` must be a function/],
  ])('refuses %j at setup', (options, message) => {
    expect(() => memoryPaymentBook(options as never)).toThrow(PixhookConfigError);
    expect(() => memoryPaymentBook(options as never)).toThrow(message);
  });
});

describe('memoryPaymentBook: one resource at a time', () => {
  it('records for one resource run in call order, each seeing the previous one', async () => {
    const book = memoryPaymentBook();
    const results = await Promise.all([
      book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'p1' }),
      book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E2' }), { dedupeKey: 'p2' }),
      book.record(chargeEvent('transaction_refunded', { id: 'c' }), { dedupeKey: 'r' }),
      book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'p1' }),
    ]);
    expect(results.map((result) => result.outcome)).toEqual(['apply', 'held', 'apply', 'duplicate']);
    expect(results[1]?.violations.map((violation) => violation.reason)).toEqual(['duplicate_payment']);
    // The first payment again, after the refund: the book applied that payment already (same endToEndId).
    expect(results[3]?.violations).toEqual([]);
    expect(await book.get('c')).toMatchObject({ status: 'refunded' });
  });
});
