import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProcessing, createReceiver, memoryJournal, memoryPaymentBook, normalizeEvent, type PixEvent } from '../../src/index.js';
import { unknownEvent, variantAPaid, variantBPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 28 §6: drain counts inline runs, close drains, stops the timers and flushes the journal, and is safe twice.
const secret = 'whsec_lifecycle';

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'X-Signature': signBytes(body, secret) }, body };
}

function eventOf(payload: unknown): PixEvent {
  const normalized = normalizeEvent(payload);
  if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('fixture does not normalize');
  return normalized.event;
}

/** A handler that runs until the test opens its gate: the run's length is the test's decision, not a timer's. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const finished: string[] = [];
  return {
    open,
    running,
    finished,
    handler: async (event: { name: string }) => {
      started();
      await opened;
      finished.push(event.name);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('drain() in inline mode', () => {
  it('stays false while a slow inline handler runs, and true once it finished', async () => {
    const slow = gate();
    const processing = createProcessing().onAny(slow.handler);
    const answered = processing.accept(eventOf(variantAPaid));
    await slow.running;
    expect(await processing.drain({ timeoutMs: 30 })).toBe(false);
    let drained: boolean | undefined;
    const draining = processing.drain().then((result) => (drained = result));
    await Promise.resolve();
    expect(drained).toBeUndefined();
    slow.open();
    expect(await draining).toBe(true);
    expect(slow.finished).toEqual(['transaction_paid']);
    expect(await answered).toMatchObject({ key: expect.any(String) });
  });

  it('counts a receiver delivery whose inline handler still runs, and an onUnknown still running', async () => {
    const slow = gate();
    const unknown = gate();
    const receiver = createReceiver({ secret }).onAny(slow.handler).onUnknown(unknown.handler);
    const answer = receiver.receive(delivery(variantBPaid));
    const unknownAnswer = receiver.receive(delivery(unknownEvent));
    await Promise.all([slow.running, unknown.running]);
    expect(await receiver.drain({ timeoutMs: 30 })).toBe(false);
    slow.open();
    expect(await receiver.drain({ timeoutMs: 30 })).toBe(false);
    unknown.open();
    expect(await receiver.drain()).toBe(true);
    expect((await answer).status).toBe(200);
    expect((await unknownAnswer).reason).toBe('unknown_event');
  });
});

describe('close()', () => {
  it('waits for the runs in flight, and a second call returns the same answer without a second drain', async () => {
    const slow = gate();
    const processing = createProcessing().onAny(slow.handler);
    void processing.accept(eventOf(variantAPaid));
    await slow.running;
    const first = processing.close();
    const second = processing.close();
    expect(second).toBe(first);
    let closed: boolean | undefined;
    void first.then((result) => (closed = result));
    await Promise.resolve();
    expect(closed).toBeUndefined();
    slow.open();
    expect(await first).toBe(true);
    expect(await processing.close()).toBe(true);
    expect(slow.finished).toEqual(['transaction_paid']);
  });

  it('is bounded: a run that outlives timeoutMs makes it resolve false', async () => {
    const slow = gate();
    const processing = createProcessing().onAny(slow.handler);
    void processing.accept(eventOf(variantAPaid));
    await slow.running;
    expect(await processing.close({ timeoutMs: 30 })).toBe(false);
    slow.open();
  });

  it('flushes the journal: the entry of a delivery answered just before is written when close resolves', async () => {
    const journal = memoryJournal();
    const receiver = createReceiver({ secret, journal }).onAny(() => undefined);
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(200);
    expect(await receiver.close()).toBe(true);
    const entries = await journal.list({});
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 200, event: 'transaction_paid', attempts: [{ attempt: 1, outcome: 'ok' }] });
  });

  it("stops the dispute alerts' timer", async () => {
    vi.useFakeTimers();
    const book = memoryPaymentBook();
    let scans = 0;
    const disputes = book.disputes.bind(book);
    book.disputes = (query) => {
      scans++;
      return disputes(query);
    };
    const receiver = createReceiver({ secret, book, disputeAlertMs: 60_000 });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(scans).toBe(2);
    await receiver.close();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(scans).toBe(2);
  });

  it('with a given processing, the receiver drains it and leaves its timers to its owner', async () => {
    vi.useFakeTimers();
    const book = memoryPaymentBook();
    let scans = 0;
    const disputes = book.disputes.bind(book);
    book.disputes = (query) => {
      scans++;
      return disputes(query);
    };
    const processing = createProcessing({ book, disputeAlertMs: 60_000 });
    const receiver = createReceiver({ secret, processing });
    expect(await receiver.close()).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(scans).toBe(1);
    await processing.close();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(scans).toBe(1);
  });
});
