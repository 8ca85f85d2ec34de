import { describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, memoryPaymentBook, type PaymentBook, type PixEvent, type Violation } from '../../src/index.js';
import { chargeEvent } from './book-events.js';

const hour = 3_600_000;

function setup(book: PaymentBook, disputeAlertMs = 5 * 24 * hour) {
  const told: [Violation, PixEvent][] = [];
  const processing = createProcessing({ book, disputeAlertMs }).onViolation((violation, event) => void told.push([violation, event]));
  return { processing, told };
}

const infraction = (id: string, openedAt: string, status = 'open', infractionId = `inf_${id}`) =>
  chargeEvent('transaction_infraction', { id, status: 'paid', infraction: { id: infractionId, status, reason: 'fraud', openedAt } });

describe('disputeAlertMs: dispute_deadline once per open dispute when its age reaches the alert', () => {
  it('tells nothing before the age, once when reached, never again; a closed dispute is never told', async () => {
    let now = Date.parse('2026-05-01T12:00:00Z');
    const book = memoryPaymentBook({ now: () => now });
    const { processing, told } = setup(book);
    expect((await processing.accept(chargeEvent('transaction_paid', { id: 'c1' }))).reason).toBeUndefined();
    await processing.accept(infraction('c1', '2026-05-01T12:00:00.000Z'));
    await processing.accept(infraction('c2', '2026-05-01T12:00:00.000Z'));
    await processing.accept(infraction('c2', '2026-05-01T12:00:00.000Z', 'closed'));

    now += 5 * 24 * hour - 1;
    expect(await processing.checkDisputes()).toBe(0);
    expect(told).toEqual([]);

    now += 1;
    expect(await processing.checkDisputes()).toBe(1);
    expect(await processing.checkDisputes()).toBe(0);
    now += 24 * hour;
    expect(await processing.checkDisputes()).toBe(0);

    expect(told).toHaveLength(1);
    const [violation, event] = told[0]!;
    expect(violation).toMatchObject({ reason: 'dispute_deadline', action: 'flag' });
    expect(violation.message).toMatch(/2026-05-01T12:00:00.000Z/);
    expect(event).toMatchObject({
      kind: 'transaction',
      name: 'transaction_infraction',
      transaction: { id: 'c1', status: 'paid', amountInCents: 1000, infraction: { id: 'inf_c1', reason: 'fraud' } },
    });
  });

  it('two scans at once tell a dispute once; a dispute closed and reopened under a new id is told again', async () => {
    let now = Date.parse('2026-05-01T12:00:00Z');
    const book = memoryPaymentBook({ now: () => now });
    const { processing, told } = setup(book, hour);
    await processing.accept(infraction('c1', '2026-05-01T12:00:00.000Z'));
    now += hour;
    // The second call shares the scan in progress (both hear its count): the dispute is told once.
    expect(await Promise.all([processing.checkDisputes(), processing.checkDisputes()])).toEqual([1, 1]);
    expect(told).toHaveLength(1);
    await processing.accept(infraction('c1', '2026-05-01T12:00:00.000Z', 'closed'));
    await processing.accept(infraction('c1', '2026-05-01T13:00:00.000Z', 'open', 'inf_second'));
    now += hour;
    expect(await processing.checkDisputes()).toBe(1);
    expect(told.map(([, event]) => (event.kind === 'transaction' ? event.transaction.infraction?.id : undefined))).toEqual([
      'inf_c1',
      'inf_second',
    ]);
  });

  it('a book that fails to list disputes is logged, never thrown; without disputeAlertMs checkDisputes is 0', async () => {
    const errors: unknown[] = [];
    const book = memoryPaymentBook();
    const broken: PaymentBook = { ...book, disputes: () => Promise.reject(new Error('book down')) };
    const processing = createProcessing({
      book: broken,
      disputeAlertMs: 1,
      logger: { info() {}, warn: (fields) => void errors.push(fields), error() {} },
    });
    expect(await processing.checkDisputes()).toBe(0);
    expect(errors).toEqual([expect.objectContaining({ error: expect.stringMatching(/book down/) })]);
    expect(await createReceiver({ secret: 's', book }).checkDisputes()).toBe(0);
  });
});
