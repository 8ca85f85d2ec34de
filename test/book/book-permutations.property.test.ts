import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventKey, isForwardTransition, memoryDedupeStore, type PixEvent } from '../../src/index.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import type { BookChannel } from '../../src/events/book-channel.js';
import { chargeEvent } from './book-events.js';
import { deliverToMany, richDeliveries, type ForgetfulInstance } from './two-instance-permutations.js';

// One charge's three forward facts, in their true order.
const facts = ['created', 'paid', 'refunded'] as const;
type Fact = (typeof facts)[number];
const statusOf: Record<Fact, string> = { created: 'pending', paid: 'paid', refunded: 'refunded' };

function eventFor(fact: Fact, channel: BookChannel): PixEvent {
  const delivery = channel === 'reconcile' ? { source: 'reconcile' as const } : { scope: channel };
  if (fact === 'created') return chargeEvent('transaction_created', { id: 'c' }, delivery);
  if (fact === 'paid') return chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }, delivery);
  return chargeEvent('transaction_refunded', { id: 'c', endToEndId: 'E1', refund: { amountInCents: 1000 } }, delivery);
}

// Every fact at least once, plus duplicates, each through postback, user or the reconciler, to instance 0 or 1.
const channel = fc.constantFrom<BookChannel>('postback', 'user', 'reconcile');
const delivery = fc.record({ fact: fc.constantFrom(...facts), channel, instance: fc.constantFrom(0, 1) });
const deliveries = fc
  .tuple(fc.tuple(channel, channel, channel), fc.array(delivery, { maxLength: 6 }), fc.constantFrom(0, 1))
  .map(([channels, extra, instance]) => [...facts.map((fact, i) => ({ fact, channel: channels[i] as BookChannel, instance })), ...extra]);

/** Statuses of the applied entries never go backwards. */
function expectNothingBackwards(statuses: string[]): void {
  for (let i = 1; i < statuses.length; i++) {
    const from = statuses[i - 1] as string;
    const to = statuses[i] as string;
    expect(to === from || isForwardTransition({ kind: 'transaction', from, to }) === true, `${from} → ${to}`).toBe(true);
  }
}

describe("the payment book under every order of a charge's events", () => {
  it('through the pipeline (dedupe claim → record → complete) on two instances: right final status, nothing backwards, each forward fact handled once', async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, fc.scheduler(), async (list, s) => {
        const book = memoryPaymentBook();
        const dedupe = memoryDedupeStore();
        const handled: Fact[] = [];
        const recordOrder: Fact[] = [];
        const answers: string[] = [];

        const deliver = async ({ fact, channel: via, instance }: (typeof list)[number], n: number) => {
          const event = eventFor(fact, via);
          const key = eventKey(event);
          const owner = `instance-${instance}-${n}`;
          await s.schedule(Promise.resolve(), `arrive ${fact} via ${via}`);
          for (;;) {
            const claim = dedupe.claim(key, owner, 60_000);
            if (claim === 'done') return void answers.push('duplicate');
            if (claim === 'claimed') break;
            await s.schedule(Promise.resolve(), `retry ${fact}`); // in_flight: the sender retries later
          }
          await s.schedule(Promise.resolve(), `record ${fact}`);
          recordOrder.push(fact);
          const result = await book.record(event, { dedupeKey: key });
          if (result.outcome === 'apply') handled.push(fact);
          answers.push(result.outcome);
          dedupe.complete(key, owner, 60_000);
        };

        const runs = list.map((d, n) => deliver(d, n));
        await s.waitAll();
        await Promise.all(runs);

        const resource = await book.get('c');
        expect(resource?.status).toBe('refunded');
        // Each fact reaches the book once (the dedupe key is the fact, whatever the channel or instance).
        expect([...recordOrder].sort()).toEqual([...facts].sort());
        // A fact is handled exactly when nothing further along was applied before it; then once.
        const expectedHandled = recordOrder.filter((fact, i) =>
          recordOrder.slice(0, i).every((earlier) => facts.indexOf(earlier) < facts.indexOf(fact)),
        );
        expect(handled).toEqual(expectedHandled);
        expect(new Set(handled).size).toBe(handled.length);
        // The facts that came too late are held, each once, never applied.
        const held = await book.held();
        expect(held.map((entry) => entry.event.name).sort()).toEqual(
          recordOrder
            .filter((fact) => !handled.includes(fact))
            .map((fact) => eventFor(fact, 'postback').name)
            .sort(),
        );
        expect(held.every((entry) => entry.violations.every((violation) => violation.reason === 'stale_status'))).toBe(true);
        const applied = resource?.timeline.filter((entry) => entry.outcome === 'apply').map((entry) => entry.status) ?? [];
        expectNothingBackwards(applied);
        expect(applied).toEqual(handled.map((fact) => statusOf[fact]));
        expect(answers).toHaveLength(list.length);
      }),
      { numRuns: 300 },
    );
  });

  it('straight to the book, duplicates included (no dedupe store in front): nothing backwards, each late fact held once, its copies duplicate_hold', async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, fc.scheduler(), async (list, s) => {
        const book = memoryPaymentBook();
        const outcomes = new Map<Fact, string[]>();
        const runs = list.map(async ({ fact, channel: via }) => {
          const event = eventFor(fact, via);
          await s.schedule(Promise.resolve(), `arrive ${fact} via ${via}`);
          const result = await book.record(event, { dedupeKey: eventKey(event) });
          outcomes.set(fact, [...(outcomes.get(fact) ?? []), result.outcome]);
        });
        await s.waitAll();
        await Promise.all(runs);

        const resource = await book.get('c');
        expect(resource?.status).toBe('refunded');
        const statuses = resource?.timeline.filter((entry) => entry.outcome === 'apply').map((entry) => entry.status) ?? [];
        expectNothingBackwards(statuses);
        // A status is entered once: the moves forward are at most created → paid → refunded.
        let moves = 0;
        for (let i = 0; i < statuses.length; i++) if (i === 0 || statuses[i] !== statuses[i - 1]) moves++;
        expect(moves).toBeLessThanOrEqual(3);
        for (const [fact, seen] of outcomes) {
          if (fact === 'created') {
            // Copies restate an applied status until something further is applied; from then on the fact is held
            // once, and every later copy is duplicate_hold.
            const firstHeld = seen.indexOf('held');
            const before = firstHeld === -1 ? seen : seen.slice(0, firstHeld);
            expect(before.every((outcome) => outcome === 'apply')).toBe(true);
            if (firstHeld !== -1) expect(seen.slice(firstHeld + 1).every((outcome) => outcome === 'duplicate_hold')).toBe(true);
          } else {
            // A money fact (the payment, the refund) runs once or is held once, never both: every copy after the
            // first is `duplicate` (applied) or `duplicate_hold` (held), whatever the dedupe store remembers.
            expect(['apply', 'held']).toContain(seen[0]);
            const copy = seen[0] === 'apply' ? 'duplicate' : 'duplicate_hold';
            expect(
              seen.slice(1).every((outcome) => outcome === copy),
              seen.join(','),
            ).toBe(true);
          }
        }
        const held = await book.held();
        expect(new Set(held.map((entry) => entry.dedupeKey)).size).toBe(held.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('every shape of a charge’s events, 2–3 instances sharing a memory book, done-marks expiring at random', () => {
  it.each([2, 3])('%i instances: each money fact runs once or is held once, never both; a wrong payment never runs', async (count) => {
    const book = memoryPaymentBook();
    const instances = Array.from({ length: count }, (): ForgetfulInstance => {
      let store = memoryDedupeStore();
      return { book, store: () => store, forget: () => (store = memoryDedupeStore()) };
    });
    await fc.assert(
      fc.asyncProperty(richDeliveries(count), (list) => deliverToMany(list, instances)),
      { numRuns: 60 },
    );
  });
});
