import { describe, expect, it } from 'vitest';
import { memoryDedupeStore } from '../../src/index.js';
import type { PaymentBookBackend } from '../../src/book/joined-claim.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import { chargeEvent, transferEvent } from './book-events.js';

// The memory book's hot path (issue 36's bench): one lookup per delivery, the judged state reused by the commit,
// eviction that walks the map once, resources keyed by their own id. Each shortcut must answer as the slow way did.

const mark = { store: memoryDedupeStore(), key: 'k', owner: 'o', ttlMs: 1000, lease: undefined };

describe('memoryPaymentBook: the hot path answers as before', () => {
  it('evicts in write order however often resources are written again (a written one becomes the newest)', async () => {
    const book = memoryPaymentBook({ max: 50 });
    const created = (id: string) => book.record(chargeEvent('transaction_created', { id }), { dedupeKey: `c-${id}` });
    for (let i = 0; i < 50; i++) await created(`r${i}`);
    // The even ones written again, newest last: the odd ones are now the oldest, in their order.
    for (let i = 0; i < 50; i += 2) await book.record(chargeEvent('transaction_paid', { id: `r${i}` }), { dedupeKey: `p-r${i}` });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 25; i++) await created(`new${round}-${i}`);
      expect(book.size).toBe(50);
    }
    // Round 0 evicted the odd ones, round 1 the even ones, round 2 round 0's: only rounds 1 and 2 are left.
    for (let i = 0; i < 50; i++) expect(await book.get(`r${i}`)).toBeUndefined();
    for (let i = 0; i < 25; i++) expect(await book.get(`new0-${i}`)).toBeUndefined();
    for (let i = 0; i < 25; i++) expect(await book.get(`new1-${i}`)).toMatchObject({ status: 'pending' });
    for (let i = 0; i < 25; i++) expect(await book.get(`new2-${i}`)).toMatchObject({ status: 'pending' });
  });

  it('evicts the oldest when the map was emptied and filled again behind its walk', async () => {
    const book = memoryPaymentBook({ max: 2 });
    for (const id of ['a', 'b', 'c', 'd']) await book.record(chargeEvent('transaction_created', { id }), { dedupeKey: id });
    // c and d written again, in the other order: c is the oldest now.
    await book.record(chargeEvent('transaction_paid', { id: 'd' }), { dedupeKey: 'd2' });
    await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'c2' });
    await book.record(chargeEvent('transaction_created', { id: 'e' }), { dedupeKey: 'e' });
    expect(await book.get('d')).toBeUndefined();
    expect(await book.get('c')).toMatchObject({ status: 'paid' });
    expect(await book.get('e')).toMatchObject({ status: 'pending' });
  });

  it('keeps apart charges and transfers whose ids would meet in one key', async () => {
    const book = memoryPaymentBook();
    const ids = ['abc', '\u0001oabc', '\u0001tabc', 'o:abc', 't:abc'];
    for (const id of ids) {
      await book.record(chargeEvent('transaction_paid', { id, amountInCents: 100 }), { dedupeKey: `c-${id}` });
      await book.record(transferEvent('transfer_completed', { id, amountInCents: 200 }), { dedupeKey: `o-${id}` });
    }
    expect(book.size).toBe(ids.length * 2);
    for (const id of ids) {
      expect(await book.get(id)).toMatchObject({ id, kind: 'transaction', status: 'paid', amountInCents: 100 });
      expect((await book.get(id))?.timeline).toHaveLength(1);
    }
    // Each transfer kept its own state: a second completion of one is not stale, a refund of a charge is its own.
    for (const id of ids) {
      const again = await book.record(transferEvent('transfer_completed', { id, amountInCents: 200 }), { dedupeKey: `o2-${id}` });
      expect(again.outcome).toBe('apply');
    }
  });

  it('a commit after other resources were written applies what it judged, once', async () => {
    const book = memoryPaymentBook() as PaymentBookBackend;
    const judged = await book.judge!(chargeEvent('transaction_paid', { id: 'a', endToEndId: 'E1' }), { dedupeKey: 'ka' });
    await book.record(chargeEvent('transaction_created', { id: 'b' }), { dedupeKey: 'kb' });
    expect(judged.commit!(mark)).toEqual({});
    const resource = await book.get('a');
    expect(resource).toMatchObject({ status: 'paid', amountInCents: 1000 });
    expect(resource?.timeline.map((entry) => entry.outcome)).toEqual(['apply']);
  });

  it('a commit after its own resource changed applies on the resource as it is now, keeping what was written meanwhile', async () => {
    const book = memoryPaymentBook() as PaymentBookBackend;
    const judged = await book.judge!(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'kp' });
    await book.record(chargeEvent('transaction_infraction', { id: 'c', status: 'paid', infraction: { id: 'm' } }), { dedupeKey: 'ki' });
    expect(judged.commit!(mark)).toEqual({});
    const resource = await book.get('c');
    expect(resource?.status).toBe('paid');
    expect(resource?.timeline.map((entry) => entry.name)).toEqual(['transaction_infraction', 'transaction_paid']);
    expect(resource?.disputes).toMatchObject([{ id: 'm', open: true }]);
    // The payment is applied: another copy of it is a duplicate.
    expect((await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'kp2' })).outcome).toBe(
      'duplicate',
    );
  });

  it("a new resource's lists are its own: answers can be changed, later steps write lists of their own", async () => {
    const book = memoryPaymentBook();
    await book.record(chargeEvent('transaction_created', { id: 'x' }), { dedupeKey: 'k1' });
    await book.record(chargeEvent('transaction_created', { id: 'y' }), { dedupeKey: 'k2' });
    const x = await book.get('x');
    x?.timeline.push({ ...x.timeline[0]! });
    x?.timeline[0]!.reasons.push('stale_status');
    x?.disputes.push({ resourceId: 'x', open: true, openedAt: '2026-01-01T00:00:00.000Z' });
    expect(await book.get('x')).toMatchObject({ timeline: [{ reasons: [] }], disputes: [] });
    await book.record(chargeEvent('transaction_infraction', { id: 'y', infraction: { id: 'm' } }), { dedupeKey: 'k3' });
    await book.record(chargeEvent('transaction_paid', { id: 'y', amountInCents: 2000 }), { dedupeKey: 'k4' });
    expect(await book.get('x')).toMatchObject({ timeline: [{ reasons: [] }], disputes: [] });
    expect(await book.get('y')).toMatchObject({ status: 'paid', disputes: [{ id: 'm' }] });
    expect((await book.get('y'))?.timeline).toHaveLength(3);
  });
});
