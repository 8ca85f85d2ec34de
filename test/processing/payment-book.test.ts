import { describe, expect, it, vi } from 'vitest';
import { createProcessing, memoryPaymentBook, normalizeEvent, type EventSource, type PixEvent } from '../../src/index.js';
import type { PaymentBookBackend } from '../../src/book/joined-claim.js';
import { buildPayload, type PayloadOptions } from '../../src/testing/index.js';

function event(name: Parameters<typeof buildPayload>[0], options: PayloadOptions, source: EventSource = 'webhook'): PixEvent {
  const normalized = normalizeEvent(buildPayload(name, { variant: 'b', seed: 2, ...options }), { source });
  if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('not an event');
  return normalized.event;
}

describe('createProcessing({ book }): every path goes through the same book', () => {
  it('records the reconciler and replays on their own channels; a replay of a held event answers held', async () => {
    const book = memoryPaymentBook();
    const handled = vi.fn();
    const processing = createProcessing({ book }).onAny(handled);
    await book.expect({ id: 'p1', amountInCents: 1000 });

    expect((await processing.accept(event('transaction_created', { id: 'p1', amountInCents: 1000 }, 'reconcile'))).reason).toBeUndefined();
    const wrong = event('transaction_paid', { id: 'p1', amountInCents: 10 }, 'replay');
    expect(await processing.accept(wrong)).toMatchObject({ reason: 'held' });
    expect(await processing.accept(event('transaction_paid', { id: 'p1', amountInCents: 10 }, 'reconcile'))).toMatchObject({
      reason: 'held',
    });
    expect((await book.get('p1'))!.timeline.map((entry) => `${entry.outcome}/${entry.channel}`)).toEqual([
      'apply/reconcile',
      'held/replay',
      'duplicate_hold/reconcile',
    ]);
    expect(handled).toHaveBeenCalledTimes(1);
  });

  it('a transfer moving backwards (completed after refused) is held as stale_status', async () => {
    const book = memoryPaymentBook();
    const violations = vi.fn();
    const processing = createProcessing({ book })
      .onAny(() => undefined)
      .onViolation(violations);
    expect(
      (await processing.accept(event('transfer_updated', { id: 'o1', amountInCents: 500, status: 'refused' }))).reason,
    ).toBeUndefined();
    expect(await processing.accept(event('transfer_completed', { id: 'o1', amountInCents: 500 }))).toMatchObject({ reason: 'held' });
    expect(violations.mock.calls.map(([violation]) => violation.reason)).toEqual(['stale_status']);
  });

  it('two concurrent deliveries of one held fact: one holds, the other is in_flight or held, then held; never a second hold', async () => {
    const book = memoryPaymentBook();
    const processing = createProcessing({ book }).onAny(() => undefined);
    await book.expect({ id: 'p2', amountInCents: 1000 });
    const wrong = event('transaction_paid', { id: 'p2', amountInCents: 1 });
    const answers = await Promise.all([processing.accept(wrong), processing.accept(structuredClone(wrong))]);
    // The memory book judges in the turn it is asked: the first may be done (then the second is its held retry).
    expect(answers[0]?.reason).toBe('held');
    expect(['held', 'in_flight']).toContain(answers[1]?.reason);
    expect(await processing.accept(wrong)).toMatchObject({ reason: 'held' });
    expect(await book.held()).toHaveLength(1);
  });

  it('a book that fails answers store_unavailable (503) and gives the claim back, so the retry is judged', async () => {
    const book: PaymentBookBackend = memoryPaymentBook();
    // The pipeline's call: `judge` (an apply is written when the handlers succeed).
    const failing = { ...book, judge: vi.fn(book.judge!).mockRejectedValueOnce(new Error('book down')) };
    const handled = vi.fn();
    const processing = createProcessing({ book: failing }).onAny(handled);
    const paid = event('transaction_paid', { id: 'p3', amountInCents: 1 });
    expect(await processing.accept(paid)).toMatchObject({ reason: 'store_unavailable', hint: 'payment book: Error: book down' });
    expect((await processing.accept(paid)).reason).toBeUndefined();
    expect(handled).toHaveBeenCalledTimes(1);
  });
});
