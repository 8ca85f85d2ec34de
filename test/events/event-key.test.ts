import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventKey as eventKeyFromIndex } from '../../src/index.js';
import { eventKey } from '../../src/events/event-key.js';
import { normalizeEvent } from '../../src/events/normalize-event.js';
import type { PixEvent, TransactionEvent } from '../../src/events/event-types.js';
import { buildPayload } from '../../src/testing/index.js';
import { samplePaidA, samplePaidB, sampleTransferCompletedB } from './published-samples.js';

function event(value: unknown): PixEvent {
  const result = normalizeEvent(value);
  if (!result.ok || result.event.kind === 'unknown') throw new Error(`not an event: ${JSON.stringify(result)}`);
  return result.event;
}
const key = (value: unknown) => eventKey(event(value));

function refunded(refund: unknown, id = 'tx_b_0001', amount = 2500) {
  return {
    ...samplePaidB,
    event: 'transaction_refunded',
    transaction: { ...samplePaidB.transaction, id, amount, status: 'refunded', refund },
  };
}

function refundedA(refund: unknown, id: string, amountInCents: number) {
  return { ...samplePaidA, event: 'transaction_refunded', data: { ...samplePaidA.data, id, amountInCents, status: 'refunded', refund } };
}

function disputed(infraction: unknown) {
  return { ...samplePaidB, event: 'transaction_infraction', transaction: { ...samplePaidB.transaction, infraction } };
}

describe('eventKey', () => {
  it('is name:id:status:amount for a plain event, and the root export', () => {
    expect(key(samplePaidB)).toBe('transaction_paid:tx_b_0001:paid:2500:e2e=E12345678202611221200abcdefghijk');
    expect(key(sampleTransferCompletedB)).not.toContain('e2e=');
    expect(key(sampleTransferCompletedB)).toBe('transfer_completed:tr_b_0001:completed:7000');
    expect(eventKeyFromIndex).toBe(eventKey);
  });

  it('the same event through postbackUrl (scope postback) and the registered webhook (scope user) is one key', () => {
    for (const name of ['transaction_paid', 'transaction_refunded', 'transaction_infraction', 'transfer_completed'] as const) {
      const viaPostback = buildPayload(name, { variant: 'b', seed: 7, scope: 'postback', deliveryId: 'dlv_1' });
      const viaWebhook = buildPayload(name, { variant: 'b', seed: 7, scope: 'user', deliveryId: 'dlv_2' });
      expect(key(viaWebhook)).toBe(key(viaPostback));
    }
  });

  it('a retry is one key, whatever its delivery id or timestamp; A and B of one fact are one key', () => {
    const a = buildPayload('transaction_refunded', {
      variant: 'a',
      seed: 3,
      timestamp: '2026-11-23T05:00:00Z',
      refund: { amountInCents: 500, refundedAt: '2026-11-23T04:00:00Z' },
    });
    const aLater = { ...a, timestamp: '2026-11-23T05:10:00Z' };
    const b = buildPayload('transaction_refunded', {
      variant: 'b',
      seed: 3,
      refund: { amountInCents: 500, refundedAt: '2026-11-23T04:00:00Z' },
    });
    expect(key(aLater)).toBe(key(a));
    expect(key(b)).toBe(key(a));
    expect(key(structuredClone(b))).toBe(key(b));
  });

  it('a second payment of the same amount with another endToEndId is a different fact; one without an endToEndId keeps the short key', () => {
    const pix = { ...samplePaidB.transaction.pix, endToEndId: 'E99999999202611221201zzzzzzzzzzz' };
    const second = { ...samplePaidB, transaction: { ...samplePaidB.transaction, pix } };
    expect(key(second)).toBe('transaction_paid:tx_b_0001:paid:2500:e2e=E99999999202611221201zzzzzzzzzzz');
    expect(key({ ...samplePaidB, transaction: { ...samplePaidB.transaction, pix: null } })).toBe('transaction_paid:tx_b_0001:paid:2500');
    expect(key(disputed({ id: 'med_1', status: 'open' }))).not.toContain('e2e=');
  });

  it('the same paid id with a different amount is a different fact', () => {
    const other = { ...samplePaidB, transaction: { ...samplePaidB.transaction, amount: 2499 } };
    expect(key(other)).not.toBe(key(samplePaidB));
    expect(key(other)).toBe('transaction_paid:tx_b_0001:paid:2499:e2e=E12345678202611221200abcdefghijk');
  });

  it('two partial refunds of one charge are two keys; the refund identity is its amount and refundedAt', () => {
    const first = refunded({ amount: 500, reason: 'partial', refundedAt: '2026-11-22T13:00:00Z' });
    const second = refunded({ amount: 300, reason: 'partial', refundedAt: '2026-11-22T14:00:00Z' });
    const sameTimeOtherAmount = refunded({ amount: 300, refundedAt: '2026-11-22T13:00:00Z' });
    const sameAmountOtherTime = refunded({ amount: 500, refundedAt: '2026-11-22T15:00:00Z' });
    const keys = [first, second, sameTimeOtherAmount, sameAmountOtherTime].map(key);
    expect(new Set(keys).size).toBe(4);
    expect(keys[0]).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=500:rt=2026-11-22T13%3A00%3A00Z');
    // With refundedAt, the reason is free text, not identity: a retry restating it differently is still the same refund.
    expect(key(refunded({ amount: 500, reason: 'other words', refundedAt: '2026-11-22T13:00:00Z' }))).toBe(keys[0]);
    // A's amountInCents and B's amount spell one refund.
    expect(key(refundedA({ amountInCents: 500, refundedAt: '2026-11-22T13:00:00Z' }, 'tx_x', 900))).toBe(
      key(refunded({ amount: 500, refundedAt: '2026-11-22T13:00:00Z' }, 'tx_x', 900)),
    );
  });

  it('two partial refunds of one charge with the same amount and no refundedAt are two keys by refund.id, in A, B and short', () => {
    const refundA = (refund: unknown) => refundedA(refund, 'tx_r', 2500);
    const refundB = (refund: unknown) => refunded(refund, 'tx_r', 2500);
    const refundShort = (refund: unknown) => ({
      id: 'tx_r',
      type: 'transaction',
      event: 'transaction_refunded',
      transaction: { id: 'tx_r', amount: 2500, status: 'refunded', refund },
    });
    for (const shape of [refundA, refundB, refundShort]) {
      const first = key(shape({ id: 'rf_1', amount: 500, amountInCents: 500 }));
      const second = key(shape({ id: 'rf_2', amount: 500, amountInCents: 500 }));
      expect(second).not.toBe(first);
      expect(first).toBe('transaction_refunded:tx_r:refunded:2500:ra=500:ri=rf_1');
      // The same refundedAt does not merge them either: the id decides.
      const at = '2026-11-22T13:00:00Z';
      expect(key(shape({ id: 'rf_1', amount: 500, amountInCents: 500, refundedAt: at }))).not.toBe(
        key(shape({ id: 'rf_2', amount: 500, amountInCents: 500, refundedAt: at })),
      );
      // A retry of one refund, restamped or restating its reason, is one key.
      expect(key(shape({ id: 'rf_1', amount: 500, amountInCents: 500, refundedAt: at, reason: 'x' }))).toBe(first);
    }
    // The three shapes of one refund are one key.
    expect(new Set([refundA, refundB, refundShort].map((shape) => key(shape({ id: 'rf_1', amount: 500, amountInCents: 500 }))))).toEqual(
      new Set(['transaction_refunded:tx_r:refunded:2500:ra=500:ri=rf_1']),
    );
  });

  it('the family’s other refund id fields (refundId, rtrId; an integer id) and a refund at the payload’s root count too', () => {
    const ids = ['rf_1', 'rf_2'];
    for (const field of ['id', 'refundId', 'rtrId']) {
      const [a, b] = ids.map((id) => key(refunded({ [field]: id, amount: 500 })));
      expect(a).not.toBe(b);
      expect(a).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=500:ri=rf_1');
    }
    expect(key(refunded({ id: 7, amount: 500 }))).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=500:ri=7');
    // `id` first: a payload naming two ids is keyed by `id`.
    expect(key(refunded({ id: 'rf_1', refundId: 'other', amount: 500 }))).toBe(key(refunded({ id: 'rf_1', amount: 500 })));
    // The short form may carry the refund beside the transaction.
    const rootRefund = (id: string) => ({
      id: 'tx_r',
      type: 'transaction',
      event: 'transaction_refunded',
      transaction: { id: 'tx_r', amount: 2500, status: 'refunded' },
      refund: { id, amount: 500 },
    });
    expect(key(rootRefund('rf_1'))).toBe('transaction_refunded:tx_r:refunded:2500:ra=500:ri=rf_1');
    expect(key(rootRefund('rf_2'))).not.toBe(key(rootRefund('rf_1')));
    // A refund id is escaped like every part.
    expect(key(refunded({ id: 'a:b', amount: 1 }))).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=1:ri=a%3Ab');
    expect(key(refunded({ id: 'a:b', amount: 1 }))).not.toBe(key(refunded({ id: 'a%3Ab', amount: 1 })));
  });

  it('without a refund id or refundedAt, the reason tells two refunds apart; the same amount and reason stay one key (documented)', () => {
    const a = key(refunded({ amount: 500, reason: 'item 1 returned' }));
    const b = key(refunded({ amount: 500, reason: 'item 2 returned' }));
    expect(a).not.toBe(b);
    expect(a).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=500:rr=item 1 returned');
    expect(key(refunded({ amount: 500, reason: 'a:b' }))).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=500:rr=a%3Ab');
    // What stays ambiguous: nothing but the amount (or the same amount and reason) is one key.
    expect(key(refunded({ amount: 500 }))).toBe(key(refunded({ amount: 500 })));
    expect(key(refunded({ amount: 500 }))).toBe('transaction_refunded:tx_b_0001:refunded:2500:ra=500');
  });

  it('two MED disputes on one paid charge, by dispute id; a dispute changing status is a new fact', () => {
    const first = disputed({ id: 'med_1', status: 'open', reason: 'fraud' });
    const second = disputed({ id: 'med_2', status: 'open', reason: 'fraud' });
    const firstClosed = disputed({ id: 'med_1', status: 'closed', reason: 'fraud' });
    expect(event(first).kind === 'transaction' && (event(first) as TransactionEvent).transaction.status).toBe('paid');
    expect(new Set([first, second, firstClosed].map(key)).size).toBe(3);
    expect(key(first)).toBe('transaction_infraction:tx_b_0001:paid:2500:mi=med_1:ms=open');
    // Without an id, the moment it was opened tells two disputes apart.
    expect(key(disputed({ createdAt: '2026-11-23T10:00:00Z' }))).not.toBe(key(disputed({ createdAt: '2026-11-23T11:00:00Z' })));
    expect(key(disputed({ createdAt: '2026-11-23T10:00:00Z' }))).toBe(
      'transaction_infraction:tx_b_0001:paid:2500:mo=2026-11-23T10%3A00%3A00Z',
    );
  });

  it('transaction_updated: status, amount and any refund or dispute it states tell two updates apart; the timestamp does not', () => {
    const update = (status: string, extra: Record<string, unknown> = {}, timestamp = '2026-11-23T05:00:00Z') => ({
      ...samplePaidA,
      event: 'transaction_updated',
      timestamp,
      data: { ...samplePaidA.data, status, ...extra },
    });
    expect(key(update('paid', {}, '2026-11-23T05:09:00Z'))).toBe(key(update('paid')));
    expect(key(update('expired'))).not.toBe(key(update('paid')));
    expect(key(update('paid', { amountInCents: 2 }))).not.toBe(key(update('paid')));
    expect(key(update('refunded', { refund: { amountInCents: 1, refundedAt: 'T1' } }))).not.toBe(key(update('refunded')));
    expect(key(update('paid', { netAmountInCents: -40, fees: 41, customer: null }))).toBe(key(update('paid')));
  });

  it('transfer_updated: status and amount tell two updates apart', () => {
    const update = (status: string, amount = 7000) => ({
      ...sampleTransferCompletedB,
      event: 'transfer_updated',
      transfer: { ...sampleTransferCompletedB.transfer, status, amount, pix: null },
    });
    expect(key(update('processing'))).toBe('transfer_updated:tr_b_0001:processing:7000');
    expect(key(update('processing'))).toBe(key({ ...update('processing'), id: 'other-delivery', scope: 'user' }));
    expect(key(update('refused'))).not.toBe(key(update('processing')));
    expect(key(update('processing', 6999))).not.toBe(key(update('processing')));
  });

  it('escapes parts: X:paid + s and X + paid:s are two keys; so are a%3Ab and a:b', () => {
    const with_ = (id: string, status: string) => ({ ...samplePaidB, transaction: { ...samplePaidB.transaction, id, status } });
    const updated = (id: string, status: string) => ({ ...with_(id, status), event: 'transaction_updated' });
    expect(key(updated('X:paid', 's'))).not.toBe(key(updated('X', 'paid:s')));
    expect(key(updated('X:paid', 's'))).toBe('transaction_updated:X%3Apaid:s:2500');
    expect(key(with_('a%3Ab', 'paid'))).not.toBe(key(with_('a:b', 'paid')));
    expect(key(with_('a%3Ab', 'paid'))).toBe('transaction_paid:a%253Ab:paid:2500:e2e=E12345678202611221200abcdefghijk');
    // A tagged part cannot be forged by a status that looks like one.
    const forged = { ...with_('tx', 'refunded:ra=500'), event: 'transaction_refunded' };
    expect(key(forged)).not.toBe(key(refunded({ amount: 500 }, 'tx')));
  });

  it('property: two events share a key exactly when they state the same fact', () => {
    const part = fc.string({ unit: fc.constantFrom('a', ':', '%', '3', 'A', '=', 'r', 'm'), minLength: 1, maxLength: 6 });
    const fact = fc.record({
      id: part,
      status: fc.string({ unit: fc.constantFrom('p', ':', '%', '=', 'a'), maxLength: 5 }),
      amount: fc.integer({ min: 0, max: 3 }),
      refund: fc.option(
        fc.record({
          id: fc.option(part, { nil: undefined }),
          amount: fc.option(fc.integer({ min: -1, max: 2 }), { nil: undefined }),
          refundedAt: fc.option(part, { nil: undefined }),
          reason: fc.option(part, { nil: undefined }),
        }),
        { nil: undefined },
      ),
      infraction: fc.option(
        fc.record({
          id: fc.option(part, { nil: undefined }),
          status: fc.option(part, { nil: undefined }),
          openedAt: fc.option(part, { nil: undefined }),
        }),
        { nil: undefined },
      ),
    });
    type Fact = typeof fact extends fc.Arbitrary<infer T> ? T : never;
    const toPayload = (f: Fact) => ({
      id: 'dlv',
      type: 'transaction',
      event: 'transaction_updated',
      scope: 'user',
      transaction: { id: f.id, status: f.status, amount: f.amount, refund: f.refund, infraction: f.infraction },
    });
    // What the key promises to tell apart: a refund's refundedAt only counts without an id, its reason only
    // without either; an infraction's openedAt only counts when it has no id; a refund or dispute that
    // states nothing is no refund or dispute.
    const identity = (f: Fact) => {
      const r = f.refund;
      const refund = r && [
        r.amount,
        r.id,
        r.id === undefined ? r.refundedAt : undefined,
        r.id === undefined && r.refundedAt === undefined ? r.reason : undefined,
      ];
      const m = f.infraction && [f.infraction.id, f.infraction.id === undefined ? f.infraction.openedAt : undefined, f.infraction.status];
      const stated = (parts: unknown[] | undefined) => (parts?.some((p) => p !== undefined) ? parts : undefined);
      return JSON.stringify([f.id, f.status, f.amount, stated(refund), stated(m)]);
    };
    // y takes each field from x or from another fact, so equal facts and near misses both come up often.
    const pair = fc.tuple(fact, fact, fc.array(fc.boolean(), { minLength: 5, maxLength: 5 })).map(([x, other, from]) => {
      const y = { ...other };
      const fields = ['id', 'status', 'amount', 'refund', 'infraction'] as const;
      fields.forEach((field, i) => {
        if (from[i]) Object.assign(y, { [field]: structuredClone(x[field]) });
      });
      return [x, y] as const;
    });
    // y re-splits x's `id:status` at another colon: what an unescaped join would merge.
    const resplit = fact.chain((x) => {
      const joined = `${x.id}:${x.status}`;
      const colons = [...joined].flatMap((c, i) => (c === ':' && i > 0 ? [i] : []));
      return fc.constantFrom(...colons).map((at) => [x, { ...x, id: joined.slice(0, at), status: joined.slice(at + 1) }] as const);
    });
    let equal = 0;
    fc.assert(
      fc.property(fc.oneof(pair, resplit), ([x, y]) => {
        const same = identity(x) === identity(y);
        if (same) equal++;
        expect(key(toPayload(x)) === key(toPayload(y))).toBe(same);
      }),
      { numRuns: 3000 },
    );
    expect(equal).toBeGreaterThan(100);
  });

  it('stays short: a typical transfer key is under 64 characters, a payment, refund or dispute key under 112', () => {
    expect(key(buildPayload('transfer_completed', { variant: 'b', seed: 1 })).length).toBeLessThan(64);
    for (const name of ['transaction_paid', 'transaction_refunded', 'transaction_infraction'] as const) {
      expect(key(buildPayload(name, { variant: 'b', seed: 1 })).length).toBeLessThan(112);
    }
  });
});
