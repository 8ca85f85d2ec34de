import { expect, it } from 'vitest';
import { createProcessing, memoryDedupeStore, type DedupeStore, type PixEvent, type Transaction } from '../../src/index.js';
import type { PaymentBook } from '../../src/book/payment-book.js';
import { chargeEvent } from './book-events.js';

// Issue 28 "one identity per payment fact": the same scenarios on every backend, through the pipeline.
// `setup()` gives a fresh, empty book and a store factory: each call of `store()` is a store that
// remembers nothing (a restart, an eviction, another instance with its own store).

export interface IdentitySetup {
  book: PaymentBook;
  store(): DedupeStore;
}

const e2e1 = 'E00000000202605011200aaaaaaaaaaa';
const e2e2 = 'E00000000202605011200bbbbbbbbbbb';

/** One receiving instance: its own store, the shared book, and a record of what its handlers ran. */
function instance(setup: IdentitySetup, ran: string[], store = setup.store()) {
  return createProcessing({ book: setup.book, store })
    .on('transaction_paid', (event) => void ran.push(`paid:${event.transaction.endToEndId ?? '-'}:${event.transaction.amountInCents}`))
    .on('transaction_refunded', (event) => void ran.push(`refunded:${event.transaction.refund?.id ?? '-'}`));
}

const paid = (id: string, fields: Partial<Transaction> = {}, via: 'user' | 'postback' = 'postback'): PixEvent =>
  chargeEvent('transaction_paid', { ...fields, id }, { scope: via });

export function paymentIdentityScenarios(setup: () => Promise<IdentitySetup>): void {
  it('one payment with and without its endToEndId (Variant B, then the short form or the reconciler) runs once', async () => {
    const ran: string[] = [];
    const s = await setup();
    const one = instance(s, ran);
    expect((await one.accept(paid('c', { endToEndId: e2e1 }))).reason).toBeUndefined();
    expect(await one.accept(paid('c'))).toMatchObject({ reason: 'duplicate' });
    expect(await one.accept(chargeEvent('transaction_paid', { id: 'c' }, { source: 'reconcile' }))).toMatchObject({ reason: 'duplicate' });
    expect(ran).toEqual([`paid:${e2e1}:1000`]);
  });

  it('a fact the book applied is never run again when the dedupe store forgot it (a fresh store, another instance)', async () => {
    const ran: string[] = [];
    const s = await setup();
    const refund = chargeEvent('transaction_refunded', { id: 'c', refund: { id: 'R1', amountInCents: 1000 } });
    await instance(s, ran).accept(paid('c', { endToEndId: e2e1 }));
    await instance(s, ran).accept(refund);
    expect(await instance(s, ran).accept(paid('c', { endToEndId: e2e1 }))).toMatchObject({ reason: 'duplicate' });
    expect(await instance(s, ran).accept(refund)).toMatchObject({ reason: 'duplicate' });
    // A second, different refund is a new fact: it runs.
    expect(
      (await instance(s, ran).accept(chargeEvent('transaction_refunded', { id: 'c', refund: { id: 'R2', amountInCents: 300 } }))).reason,
    ).toBeUndefined();
    expect(ran).toEqual([`paid:${e2e1}:1000`, 'refunded:R1', 'refunded:R2']);
  });

  it('a held payment and its copy in another shape are one hold; once released it never runs again', async () => {
    const ran: string[] = [];
    const s = await setup();
    await s.book.expect({ id: 'c', amountInCents: 2000 });
    const one = instance(s, ran);
    expect(await one.accept(paid('c', { endToEndId: e2e1 }))).toMatchObject({ reason: 'held' });
    expect(await instance(s, ran).accept(paid('c', {}, 'user'))).toMatchObject({ reason: 'held' });
    const held = await s.book.held();
    expect(held).toHaveLength(1);
    expect(await one.release(held[0]!.heldId)).toEqual({ ok: true });
    // The released wrong amount, redelivered to a store that never saw it: the book applied it already.
    expect(await instance(s, ran).accept(paid('c', { endToEndId: e2e1 }))).toMatchObject({ reason: 'duplicate' });
    expect(await instance(s, ran).accept(paid('c'))).toMatchObject({ reason: 'duplicate' });
    expect(ran).toEqual([`paid:${e2e1}:1000`]);
    expect(await s.book.held()).toEqual([]);
  });

  it('a second payment is held: another endToEndId, or another payer without one; a short-form payment learns its endToEndId', async () => {
    const ran: string[] = [];
    const s = await setup();
    const one = instance(s, ran, memoryDedupeStore());
    await one.accept(paid('c', { payer: { document: '123.456.789-09' } }));
    // The same payment with its id: a duplicate, and from now on the payment is known by that id.
    expect(await one.accept(paid('c', { endToEndId: e2e1, payer: { document: '12345678909' } }))).toMatchObject({ reason: 'duplicate' });
    // Its dedupe key is the first payment's (the key carries no payer): only a store that forgot lets it through to the book.
    expect(await instance(s, ran).accept(paid('c', { payer: { document: '98765432100' } }))).toMatchObject({ reason: 'held' });
    expect(await one.accept(paid('c', { endToEndId: e2e2, payer: { document: '12345678909' } }))).toMatchObject({ reason: 'held' });
    const reasons = (await s.book.held()).map((h) => h.violations.map((v) => v.reason));
    expect(reasons).toEqual([['duplicate_payment'], ['duplicate_payment']]);
    expect(ran).toEqual(['paid:-:1000']);
  });

  it('an infraction before the payment stands in for nothing: the payment is still checked against the expectation', async () => {
    const ran: string[] = [];
    const s = await setup();
    await s.book.expect({ id: 'c', amountInCents: 1000, payerDocument: '12345678909' });
    const one = instance(s, ran);
    await one.accept(chargeEvent('transaction_infraction', { id: 'c', infraction: { id: 'med_1', status: 'open' } }));
    expect((await s.book.get('c'))?.status).toBe('pending');
    expect(await one.accept(paid('c', { amountInCents: 1, payer: { document: '98765432100' } }))).toMatchObject({ reason: 'held' });
    expect((await s.book.held())[0]?.violations.map((v) => v.reason)).toEqual(['amount_mismatch', 'payer_mismatch']);
    expect(ran).toEqual([]);
  });

  it('release and dismiss keep who decided and why, on the held event and its timeline entry; closed holds read back', async () => {
    const s = await setup();
    const one = instance(s, []);
    await s.book.expect({ id: 'c', amountInCents: 2000 });
    await s.book.expect({ id: 'd', amountInCents: 2000 });
    await one.accept(paid('c'));
    await one.accept(paid('d'));
    const [first, second] = await s.book.held();
    expect(await one.release(first!.heldId, { note: 'the payer confirmed by phone', by: 'ana' })).toEqual({ ok: true });
    expect(await s.book.dismiss(second!.heldId, 'refunded by hand', { by: 'bia' })).toEqual({ ok: true });
    expect((await s.book.get('c'))?.timeline.at(-1)).toMatchObject({
      outcome: 'released',
      note: 'the payer confirmed by phone',
      by: 'ana',
    });
    expect((await s.book.get('d'))?.timeline.at(-1)).toMatchObject({ outcome: 'dismissed', note: 'refunded by hand', by: 'bia' });
    expect(await s.book.heldEvent(first!.heldId)).toMatchObject({ state: 'released', note: 'the payer confirmed by phone', by: 'ana' });
    const closed = await s.book.held({ state: 'closed' });
    expect(closed.map((h) => [h.heldId, h.state, h.by])).toEqual([
      [first!.heldId, 'released', 'ana'],
      [second!.heldId, 'dismissed', 'bia'],
    ]);
    expect(await s.book.held()).toEqual([]);
    expect(await s.book.heldEvent('held_none')).toBeUndefined();
  });
}
