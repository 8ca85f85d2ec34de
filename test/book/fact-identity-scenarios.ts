import { expect, it } from 'vitest';
import { readPixItem } from '../../src/api-pix/index.js';
import { createProcessing, type PixEvent } from '../../src/index.js';
import { apiPixPix, apiPixRefund, seededRandom } from '../../src/testing/index.js';
import { chargeEvent } from './book-events.js';
import type { IdentitySetup } from './payment-identity-scenarios.js';

// Issue 36 §3 "every fact read right", on every backend, through the pipeline: a devolução's statuses are each a
// fact of their own, a refund is its Pix's (endToEndId + refund id), and a payment whose money went back since it
// was held is never released. `setup()` as in payment-identity-scenarios.ts: each `store()` remembers nothing.

/** One receiving instance with a store of its own and the shared book; `ran` records each handler run. */
function instance(setup: IdentitySetup, ran: string[]) {
  return createProcessing({ book: setup.book, store: setup.store() })
    .on('transaction_paid', (event) => void ran.push(`paid:${event.transaction.endToEndId ?? '-'}`))
    .on('transaction_refunded', (event) => void ran.push(`refunded:${event.transaction.refund?.id ?? '-'}`))
    .on('pix_received', (event) => void ran.push(`pix:${event.pix.endToEndId}`))
    .on('pix_refund_updated', (event) => void ran.push(`refund:${event.refund.endToEndId}/${event.refund.id}/${event.refund.status}`));
}

/** The events one standard Pix item states: its `pix_received`, then one `pix_refund_updated` per devolução. */
function eventsOf(item: unknown): PixEvent[] {
  const read = readPixItem(item, 'pix.0');
  expect(read.failures).toEqual([]);
  return read.events;
}

const reasons = async (processing: ReturnType<typeof instance>, events: PixEvent[]) => {
  const out: (string | undefined)[] = [];
  for (const event of events) out.push((await processing.accept(event)).reason);
  return out;
};

export function factIdentityScenarios(setup: () => Promise<IdentitySetup>): void {
  it('a devolução at each status is its own fact: processing, then not_returned, each run once, never taken for the payment', async () => {
    const ran: string[] = [];
    const s = await setup();
    const random = seededRandom(36);
    const pix = apiPixPix({ amountInCents: 5000, random });
    const processing = apiPixRefund({ id: '1', amountInCents: 1000, status: 'EM_PROCESSAMENTO', random });
    const notReturned = { ...processing, status: 'NAO_REALIZADO' as const };
    expect(await reasons(instance(s, ran), eventsOf(pix))).toEqual([undefined]);
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [processing] }))).toEqual(['duplicate', undefined]);
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [notReturned] }))).toEqual(['duplicate', undefined]);
    // Each status again, to stores that forgot them: the book knows each one.
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [processing] }))).toEqual(['duplicate', 'duplicate']);
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [notReturned] }))).toEqual(['duplicate', 'duplicate']);
    const e2e = pix.endToEndId;
    expect(ran).toEqual([`pix:${e2e}`, `refund:${e2e}/1/processing`, `refund:${e2e}/1/not_returned`]);
    // Neither moved the charge, nor held anything.
    expect((await s.book.get(pix.txid!))?.status).toBe('paid');
    expect(await s.book.held()).toEqual([]);
  });

  it('a second devolução still processing after a first one returned runs: it states no status, so it is never stale', async () => {
    const ran: string[] = [];
    const s = await setup();
    const random = seededRandom(37);
    const pix = apiPixPix({ amountInCents: 5000, random });
    const first = apiPixRefund({ id: 'a1', amountInCents: 1000, status: 'DEVOLVIDO', random });
    const second = apiPixRefund({ id: 'a2', amountInCents: 500, status: 'EM_PROCESSAMENTO', random });
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [first] }))).toEqual([undefined, undefined]);
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [first, second] }))).toEqual([
      'duplicate',
      'duplicate',
      undefined,
    ]);
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [first, { ...second, status: 'DEVOLVIDO' }] }))).toEqual([
      'duplicate',
      'duplicate',
      undefined,
    ]);
    const e2e = pix.endToEndId;
    expect(ran).toEqual([`pix:${e2e}`, `refund:${e2e}/a1/returned`, `refund:${e2e}/a2/processing`, `refund:${e2e}/a2/returned`]);
    expect((await s.book.get(pix.txid!))?.status).toBe('refunded');
    expect(await s.book.held()).toEqual([]);
  });

  it('two Pix on one txid: the second Pix’s refund "1" is its own fact, not the first Pix’s refund "1"', async () => {
    const ran: string[] = [];
    const s = await setup();
    const random = seededRandom(38);
    const first = apiPixPix({ amountInCents: 5000, random });
    const second = apiPixPix({ amountInCents: 5000, txid: first.txid!, random });
    const refundOfFirst = apiPixRefund({ id: '1', amountInCents: 1000, status: 'DEVOLVIDO', random });
    const refundOfSecond = apiPixRefund({ id: '1', amountInCents: 1000, status: 'DEVOLVIDO', random });
    expect(await reasons(instance(s, ran), eventsOf({ ...first, devolucoes: [refundOfFirst] }))).toEqual([undefined, undefined]);
    // The second Pix is a second payment on the charge (held), and its own refund "1" returns R$10,00 of it.
    expect(await reasons(instance(s, ran), eventsOf({ ...second, devolucoes: [refundOfSecond] }))).toEqual(['held', undefined]);
    expect(ran).toEqual([`pix:${first.endToEndId}`, `refund:${first.endToEndId}/1/returned`, `refund:${second.endToEndId}/1/returned`]);
    expect((await s.book.held()).map((h) => [h.event.name, h.violations.map((v) => v.reason)])).toEqual([
      ['pix_received', ['stale_status', 'duplicate_payment']],
    ]);
  });

  it('a payment held for a wrong amount, then refunded: its release is refused (refunded_since_held); it stays held and can be dismissed', async () => {
    const ran: string[] = [];
    const s = await setup();
    await s.book.expect({ id: 'c', amountInCents: 2000 });
    const one = instance(s, ran);
    expect(await one.accept(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }))).toMatchObject({ reason: 'held' });
    const refund = chargeEvent('transaction_refunded', { id: 'c', endToEndId: 'E1', refund: { id: 'R1', amountInCents: 1000 } });
    expect((await one.accept(refund)).reason).toBeUndefined();
    const [held] = await s.book.held();
    expect(await one.release(held!.heldId)).toEqual({ ok: false, reason: 'refunded_since_held' });
    expect(await instance(s, ran).release(held!.heldId)).toEqual({ ok: false, reason: 'refunded_since_held' });
    expect(ran).toEqual(['refunded:R1']);
    expect(await s.book.heldEvent(held!.heldId)).toMatchObject({ state: 'held' });
    expect(await s.book.dismiss(held!.heldId, 'the money went back', { by: 'ana' })).toEqual({ ok: true });
    expect(await s.book.held()).toEqual([]);
    expect((await s.book.get('c'))?.timeline.map((entry) => entry.outcome)).toEqual(['held', 'apply', 'dismissed']);
  });

  it('a Pix held for a wrong amount whose money a MED_FRAUDE devolução returned is never released; a hold opened after a refund still is', async () => {
    const ran: string[] = [];
    const s = await setup();
    const random = seededRandom(39);
    const pix = apiPixPix({ amountInCents: 100, random });
    await s.book.expect({ id: pix.txid!, amountInCents: 2590 });
    expect(await reasons(instance(s, ran), eventsOf(pix))).toEqual(['held']);
    const med = apiPixRefund({ id: 'med1', amountInCents: 100, status: 'DEVOLVIDO', nature: 'MED_FRAUDE', random });
    expect(await reasons(instance(s, ran), eventsOf({ ...pix, devolucoes: [med] }))).toEqual(['held', undefined]);
    expect((await s.book.get(pix.txid!))?.status).toBe('refunded');
    const [held] = await s.book.held();
    expect(await instance(s, ran).release(held!.heldId)).toEqual({ ok: false, reason: 'refunded_since_held' });
    expect(ran).toEqual([`refund:${pix.endToEndId}/med1/returned`]);

    // Another charge: paid, refunded, then a second Pix arrives and is held. Its money is here: releasing it runs it.
    const other = apiPixPix({ amountInCents: 700, random });
    const late = apiPixPix({ amountInCents: 700, txid: other.txid!, random });
    const back = apiPixRefund({ id: '1', amountInCents: 700, status: 'DEVOLVIDO', random });
    expect(await reasons(instance(s, ran), eventsOf({ ...other, devolucoes: [back] }))).toEqual([undefined, undefined]);
    expect(await reasons(instance(s, ran), eventsOf(late))).toEqual(['held']);
    const lateHeld = (await s.book.held()).find((h) => h.heldId !== held!.heldId);
    expect(await instance(s, ran).release(lateHeld!.heldId)).toEqual({ ok: true });
    expect(ran.at(-1)).toBe(`pix:${late.endToEndId}`);
  });
}
