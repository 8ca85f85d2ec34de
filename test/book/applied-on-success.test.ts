import { describe, expect, it } from 'vitest';
import type { PaymentBookBackend } from '../../src/book/joined-claim.js';
import { createReceiver, memoryDedupeStore, memoryPaymentBook, type HandlerContext } from '../../src/index.js';
import { chargeEvent } from './book-events.js';
import { orderLeasesOf } from '../../src/processing/resource-order.js';
import {
  backgroundAppliesOnSuccess,
  backgroundFailsThenRetry,
  paidDelivery,
  secret,
  releaseFailsThenAgain,
  throwsOnceApiPix,
  throwsOnceInline,
  timeoutThenRetry,
  twoInstances,
} from './applied-on-success-scenarios.js';

// Issue 36 §1 on the memory book (each fails on the code before it: the book applied the event before its
// handlers ran, so the retry after a failure was answered `duplicate` and the payment was never handled).
describe('memory book: a fact is applied exactly when its handlers succeed', () => {
  const fresh = () => ({ book: memoryPaymentBook(), store: memoryDedupeStore() });

  it('a handler that throws once: 500, 200, 200 duplicate, and it succeeded once', () => throwsOnceInline(fresh()));
  it('the same on the API Pix receiver', () => throwsOnceApiPix(fresh()));
  it('background: applied only when the internal retry succeeds', () => backgroundAppliesOnSuccess(fresh()));
  it('background: every run failed, nothing applied, the sender’s retry runs it', () => backgroundFailsThenRetry(fresh()));
  it('a timed-out run: the retry while it runs is in_flight, then the next retry runs the handler', () => timeoutThenRetry(fresh()));
  it('a release that fails leaves it held; released again it runs once', () => releaseFailsThenAgain(fresh()));
  it('two instances sharing the book and the store', () => {
    const shared = fresh();
    return twoInstances(() => shared);
  });

  it('judge writes no apply until its commit; the commit applies once, whatever happened meanwhile', async () => {
    const book = memoryPaymentBook() as PaymentBookBackend;
    const paid = chargeEvent('transaction_paid', { id: 'j1', endToEndId: 'E1' });
    const judged = await book.judge!(paid, { dedupeKey: 'k1' });
    expect(judged.outcome).toBe('apply');
    expect(await book.get('j1')).toBeUndefined();
    // Judged again before the commit (another copy, once the first failed): still apply.
    const again = await book.judge!(paid, { dedupeKey: 'k1' });
    const mark = { store: memoryDedupeStore(), key: 'k1', owner: 'o', ttlMs: 1000, lease: undefined };
    expect(judged.commit!(mark)).toEqual({});
    expect(again.commit!(mark)).toEqual({});
    const resource = await book.get('j1');
    expect(resource?.status).toBe('paid');
    expect(resource?.timeline.map((entry) => entry.outcome)).toEqual(['apply']);
    // The public record still applies when it decides.
    expect((await book.record(chargeEvent('transaction_refunded', { id: 'j1' }), { dedupeKey: 'k2' })).outcome).toBe('apply');
    expect((await book.get('j1'))?.status).toBe('refunded');
  });

  it('processings in one process sharing a book share the order lease, whatever their stores', async () => {
    const book = memoryPaymentBook();
    const [a, b] = [memoryDedupeStore(), memoryDedupeStore()];
    expect(orderLeasesOf(a, book)).toBe(orderLeasesOf(b, book));
    expect(orderLeasesOf(memoryDedupeStore())).not.toBe(orderLeasesOf(a, book));
    // Two instances, each with its own store: a failure on one, the retry on the other runs it once.
    await twoInstances(() => ({ book, store: memoryDedupeStore() }));
  });

  it('context reads the same in every wrapper: a release, and a copy made with Object.create', async () => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'ctx1', amountInCents: 1000 });
    const seen: unknown[] = [];
    const receiver = createReceiver({ secret, book }).on('transaction_paid', (_event, context) => {
      const copy = Object.create(context) as HandlerContext;
      seen.push([context.signal.aborted, copy.signal === context.signal, copy.attempt, copy.mode, typeof copy.key]);
      copy.markDuplicate();
    });
    expect((await receiver.receive(paidDelivery('ctx1', 900))).reason).toBe('held');
    const [held] = await book.held();
    expect(await receiver.release(held!.heldId)).toEqual({ ok: true });
    expect(seen).toEqual([[false, true, 1, 'inline', 'string']]);
  });
});
