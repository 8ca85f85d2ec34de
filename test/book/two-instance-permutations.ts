import fc from 'fast-check';
import { expect } from 'vitest';
import { internalsOf } from '../../src/adapter-kit/index.js';
import {
  createReceiver,
  isForwardTransition,
  normalizeEvent,
  type DedupeStore,
  type PaymentBook,
  type PixEvent,
  type Receiver,
} from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// The "Done when": every order of a charge's events (created, paid, refunded, copies of each),
// through the postback and user channels and the reconciler, delivered to TWO receivers sharing one
// store and one book. Each resource ends refunded, each forward fact is handled once, nothing goes backwards.

const secret = 'whsec_two_instances';
const facts = ['transaction_created', 'transaction_paid', 'transaction_refunded'] as const;
type Fact = (typeof facts)[number];
type Channel = 'postback' | 'user' | 'reconcile';

const channel = fc.constantFrom<Channel>('postback', 'user', 'reconcile');
const delivery = fc.record({ fact: fc.constantFrom(...facts), channel, instance: fc.constantFrom(0, 1) });
/** Every fact at least once, plus up to five copies, in any order. */
export const deliveries = fc
  .tuple(fc.tuple(channel, channel, channel), fc.tuple(fc.nat(1), fc.nat(1), fc.nat(1)), fc.array(delivery, { maxLength: 5 }))
  .chain(([channels, instances, extra]) =>
    fc.shuffledSubarray(
      [...facts.map((fact, i) => ({ fact, channel: channels[i] as Channel, instance: instances[i] as number })), ...extra],
      { minLength: 3 + extra.length, maxLength: 3 + extra.length },
    ),
  );

/** One instance: what it shares (store, book), and what its handlers may need to run inside (a wrapper). */
export interface Instance {
  store: DedupeStore;
  book: PaymentBook;
  wrap?: (handler: (event: PixEvent) => Promise<void>) => (event: PixEvent, context: never) => Promise<void>;
}

let charges = 0;

/** Runs one generated order against two instances made by `make`, and checks the outcome. */
export async function deliverToTwo(list: { fact: Fact; channel: Channel; instance: number }[], instances: [Instance, Instance]) {
  const id = `tx_perm_${process.pid}_${++charges}`;
  const handled: string[] = [];
  const receivers: Receiver[] = instances.map(({ store, book, wrap }) => {
    const receiver = createReceiver({ secret, store, book });
    const handler = async (event: PixEvent) => void handled.push(event.name);
    receiver.on([...facts], (wrap ? wrap(handler) : handler) as (event: PixEvent) => Promise<void>);
    return receiver;
  });
  const answers: string[] = [];
  await Promise.all(
    list.map(async ({ fact, channel: via, instance }, n) => {
      // Arrivals overlap: each starts a little after the previous one.
      await new Promise((resolve) => setTimeout(resolve, n * 2));
      const payload = buildPayload(fact, {
        variant: 'b',
        seed: 7,
        id,
        amountInCents: 1000,
        endToEndId: 'E12345678202605011200aaaaaaaaaaa',
        scope: via === 'user' ? 'user' : 'postback',
      });
      const receiver = receivers[instance] as Receiver;
      for (let attempt = 0; attempt < 200; attempt++) {
        let reason: string | undefined;
        if (via === 'reconcile') {
          const normalized = normalizeEvent(payload, { source: 'reconcile' });
          if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('the payload does not normalize');
          reason = (await internalsOf(receiver).processing.accept(normalized.event)).reason;
        } else {
          const body = bytesOf(payload);
          const result = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
          reason = result.reason;
          if (result.status !== 200 && reason !== 'in_flight') throw new Error(`answered ${result.status} ${String(reason)}`);
        }
        // In flight on the other instance: the sender retries later.
        if (reason !== 'in_flight') return void answers.push(reason ?? 'handled');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error('still in flight after 200 attempts');
    }),
  );

  const book = instances[0].book;
  const resource = await book.get(id);
  expect(resource?.status).toBe('refunded');
  // Each forward fact handled at most once, and exactly the ones the book applied.
  expect(new Set(handled).size).toBe(handled.length);
  const applied = resource?.timeline.filter((entry) => entry.outcome === 'apply') ?? [];
  // (Handlers of two facts applied back to back may run side by side on two instances: compare as sets.)
  expect(applied.map((entry) => entry.name).sort()).toEqual([...handled].sort());
  for (let i = 1; i < applied.length; i++) {
    const from = applied[i - 1]?.status as string;
    const to = applied[i]?.status as string;
    expect(isForwardTransition({ kind: 'transaction', from, to }), `${from} → ${to}`).toBe(true);
  }
  expect(handled).toContain('transaction_refunded');
  // A late fact is held once; its copies are answered held again, never a second hold.
  const held = (await book.held()).filter((entry) => entry.resourceId === id);
  expect(new Set(held.map((entry) => entry.dedupeKey)).size).toBe(held.length);
  expect(held.map((entry) => entry.event.name).sort()).toEqual(facts.filter((fact) => !handled.includes(fact)).sort());
  expect(answers).toHaveLength(list.length);
}
