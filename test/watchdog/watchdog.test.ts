import { describe, expect, it } from 'vitest';
import { createWatchdog, type WatchdogAlert } from '../../src/console/index.js';
import { createReceiver, memoryJournal, memoryPaymentBook, PixhookConfigError, type DeliveryJournal } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { entry } from '../journal/journal-entries.js';

// Issue 31: alerts when webhooks go silent or keep failing. Every test drives an injected clock.
const minute = 60_000;
const noon = Date.UTC(2026, 10, 27, 12, 0, 0);

function clock(start: number) {
  let at = start;
  return { now: () => at, set: (ms: number) => void (at = ms) };
}

function setup(options: Partial<Parameters<typeof createWatchdog>[0]> = {}) {
  const journal = memoryJournal();
  const time = clock(noon);
  const alerts: WatchdogAlert[] = [];
  const warnings: string[] = [];
  const watchdog = createWatchdog({
    journal,
    now: time.now,
    onAlert: (alert) => alerts.push(alert),
    logger: { info() {}, warn: (_f, message) => warnings.push(message ?? ''), error() {} },
    ...options,
  });
  return { journal, time, alerts, warnings, watchdog };
}

const at = (ms: number) => new Date(ms).toISOString();

describe('createWatchdog', () => {
  it('raises `silent` once when no genuine delivery came for N minutes, and clears when one arrives', async () => {
    const { journal, time, alerts, warnings, watchdog } = setup({ silentAfterMinutes: 30 });
    await journal.add(entry({ at: at(noon) }));
    // Forged traffic is not a sign of life.
    time.set(noon + 29 * minute);
    expect(await watchdog.check()).toEqual([]);
    await journal.add(entry({ at: at(noon + 30 * minute), verified: false, status: 401 }));
    time.set(noon + 31 * minute);
    expect((await watchdog.check()).map((a) => a.kind)).toEqual(['silent']);
    await watchdog.check();
    expect(alerts.map((a) => a.kind)).toEqual(['silent']);
    expect(alerts[0]!.message).toContain('31 minutes');
    expect(warnings).toHaveLength(1);
    expect(watchdog.metrics()).toMatchObject({ checks: 3, active: 1, alerts: { silent: 1 } });
    await journal.add(entry({ at: at(noon + 32 * minute) }));
    time.set(noon + 33 * minute);
    expect(await watchdog.check()).toEqual([]);
    expect(watchdog.active()).toEqual([]);
    watchdog.close();
  });

  it('stays quiet outside the configured hours (UTC), and counts from its own start on an empty journal', async () => {
    const { time, watchdog } = setup({ silentAfterMinutes: 10, activeHours: { from: 11, to: 23 } });
    time.set(Date.UTC(2026, 10, 28, 3, 0, 0));
    expect(await watchdog.check()).toEqual([]);
    time.set(Date.UTC(2026, 10, 28, 12, 0, 0));
    expect((await watchdog.check()).map((a) => a.kind)).toEqual(['silent']);
    const fresh = setup({ silentAfterMinutes: 10 });
    fresh.time.set(noon + 9 * minute);
    expect(await fresh.watchdog.check()).toEqual([]);
    watchdog.close();
    fresh.watchdog.close();
  });

  it('raises `signature_failures` above the rate per minute', async () => {
    const { journal, time, watchdog } = setup({ maxSignatureFailuresPerMinute: 3 });
    await journal.add(entry({ at: at(noon) }));
    for (let i = 0; i < 3; i++) await journal.add(entry({ at: at(noon + 10_000), verified: false, status: 401 }));
    time.set(noon + 20_000);
    expect(await watchdog.check()).toEqual([]);
    await journal.add(entry({ at: at(noon + 15_000), verified: false, status: 401 }));
    expect((await watchdog.check()).map((a) => a.kind)).toEqual(['signature_failures']);
    time.set(noon + 2 * minute);
    expect(await watchdog.check()).toEqual([]);
    watchdog.close();
  });

  it('raises `reconciler_recovered` each time the recovered count grows', async () => {
    let recovered = 0;
    const reconciler = { metrics: () => Promise.resolve({ watched: 0, checked: 0, recovered, finished: 0, lagMs: 0, pausedUntil: 0 }) };
    const { journal, alerts, watchdog } = setup({ reconciler });
    await journal.add(entry({ at: at(noon) }));
    expect(await watchdog.check()).toEqual([]);
    recovered = 2;
    expect((await watchdog.check()).map((a) => a.message)).toEqual(['The reconciler recovered 2 payment(s) the webhook never delivered.']);
    expect(await watchdog.check()).toEqual([]);
    recovered = 3;
    await watchdog.check();
    expect(alerts.map((a) => a.kind)).toEqual(['reconciler_recovered', 'reconciler_recovered']);
    watchdog.close();
  });

  it('raises `held_too_long` and `dispute_deadline` from a real payment book', async () => {
    const secret = 'whsec_watchdog_book';
    const book = memoryPaymentBook();
    const journal = memoryJournal();
    const receiver = createReceiver({ secret, book, journal }).on('transaction_paid', () => undefined);
    const deliver = async (name: Parameters<typeof buildPayload>[0], id: string, amountInCents: number) => {
      const body = bytesOf(buildPayload(name, { id, amountInCents }));
      await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    };
    await book.expect({ id: 'txn_wd_held', amountInCents: 1000 });
    await deliver('transaction_paid', 'txn_wd_held', 1);
    await deliver('transaction_paid', 'txn_wd_disputed', 500);
    await deliver('transaction_infraction', 'txn_wd_disputed', 500);
    await receiver.drain();
    expect(await book.held()).toHaveLength(1);
    const time = clock(Date.now());
    const watchdog = createWatchdog({ journal, book, now: time.now, heldLongerThanMinutes: 60, disputeAlertAfterDays: 5 });
    expect(await watchdog.check()).toEqual([]);
    time.set(Date.now() + 61 * minute);
    expect((await watchdog.check()).map((a) => a.kind)).toContain('held_too_long');
    time.set(Date.now() + 5 * 24 * 60 * minute);
    expect((await watchdog.check()).map((a) => a.kind)).toEqual(expect.arrayContaining(['held_too_long', 'dispute_deadline']));
    watchdog.close();
  });

  it('never rejects when a part fails: the failure is logged, the other checks still run', async () => {
    const errors: string[] = [];
    const failing: Pick<DeliveryJournal, 'list'> = { list: () => Promise.reject(new Error('redis://u:hunter2@db down')) };
    const watchdog = createWatchdog({
      journal: failing,
      reconciler: { metrics: () => Promise.resolve({ watched: 0, checked: 0, recovered: 1, finished: 0, lagMs: 0, pausedUntil: 0 }) },
      logger: { info() {}, warn() {}, error: (fields) => errors.push(JSON.stringify(fields)) },
    });
    expect((await watchdog.check()).map((a) => a.kind)).toEqual(['reconciler_recovered']);
    expect(errors.join()).toContain('u:***@db');
    expect(errors.join()).not.toContain('hunter2');
    watchdog.close();
  });

  it.each([
    [{}, 'journal'],
    [{ journal: memoryJournal(), silentAfterMinutes: 0 }, 'silentAfterMinutes'],
    [{ journal: memoryJournal(), activeHours: { from: 25, to: 3 } }, 'activeHours.from'],
    [{ journal: memoryJournal(), intervalMs: 10 }, 'intervalMs'],
    [{ journal: memoryJournal(), onAlert: 'yes' }, 'onAlert'],
    [{ journal: memoryJournal(), book: {} }, 'book'],
  ])('refuses %j naming the option', (options, name) => {
    expect(() => createWatchdog(options as never)).toThrow(PixhookConfigError);
    expect(() => createWatchdog(options as never)).toThrow(name);
  });

  it('close() stops its timer', async () => {
    let reads = 0;
    const journal: Pick<DeliveryJournal, 'list'> = { list: () => (reads++, Promise.resolve([])) };
    const watchdog = createWatchdog({ journal, intervalMs: 1000 });
    await expect.poll(() => reads, { timeout: 5000 }).toBeGreaterThan(0);
    watchdog.close();
    const seen = reads;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reads).toBe(seen);
  });
});
