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

/**
 * Longer than any answer to retry can legitimately last (an event in flight elsewhere runs up to deadlineMs, 8 s,
 * after waiting up to orderWaitMs, 5 s, for its order lease; a lapsed claim frees after claimTtlMs, 5 s).
 */
const retryForMs = 60_000;

/**
 * A sender's retries: `attempt` again 5 ms after each answer that says to retry, until it answers otherwise.
 * Bounded by time, not by a count of retries: on a loaded machine an event stays in flight longer, and a fixed
 * number of quick retries could run out while it still legitimately was.
 */
async function retrying(attempt: () => Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + retryForMs;
  while (!(await attempt())) {
    if (Date.now() > giveUpAt) throw new Error(`still answered "retry" after ${retryForMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

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
      await retrying(async () => {
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
        if (reason === 'in_flight') return false;
        answers.push(reason ?? 'handled');
        return true;
      });
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

// Issue 28 "Done when": the same charge's events in every shape — paid in Variant A, B and the short form,
// with and without its endToEndId; a wrong second payment; an infraction before or after the payment; a
// refund — through postback, user and the reconciler, to 2 or 3 instances that share the book but whose
// dedupe done-marks expire at random (the delivery reaches a store that never saw it).

type Shape = 'a' | 'b' | 'short';
export type RichFact = 'created' | 'paid' | 'paid_bare' | 'paid_wrong' | 'infraction' | 'refunded';
export interface RichDelivery {
  fact: RichFact;
  shape: Shape;
  channel: Channel;
  instance: number;
  /** The done-mark expired: this delivery reaches a store that never saw the event. */
  forgotten: boolean;
}

const richFact = fc.constantFrom<RichFact>('created', 'paid', 'paid_bare', 'paid_wrong', 'infraction', 'refunded');
const richDelivery = (instances: number) =>
  fc.record({
    fact: richFact,
    shape: fc.constantFrom<Shape>('a', 'b', 'short'),
    channel,
    instance: fc.nat(instances - 1),
    forgotten: fc.boolean(),
  });

/** The paid and the refund at least once, plus up to six more of anything, in any order, over `instances` instances. */
export const richDeliveries = (instances: number) =>
  fc
    .tuple(richDelivery(instances), richDelivery(instances), fc.array(richDelivery(instances), { maxLength: 6 }))
    .chain(([paid, refunded, extra]) =>
      fc.shuffledSubarray([{ ...paid, fact: 'paid' as const }, { ...refunded, fact: 'refunded' as const, shape: 'b' as const }, ...extra], {
        minLength: 2 + extra.length,
        maxLength: 2 + extra.length,
      }),
    );

const rightE2e = 'E12345678202605011200aaaaaaaaaaa';
const wrongE2e = 'E12345678202605011200bbbbbbbbbbb';

export function richPayload(id: string, d: Pick<RichDelivery, 'fact' | 'shape' | 'channel'>): unknown {
  const scope = d.channel === 'user' ? 'user' : 'postback';
  const base = { seed: 7, id, scope, amountInCents: 1000 } as const;
  switch (d.fact) {
    case 'created':
      return buildPayload('transaction_created', { ...base, variant: d.shape });
    case 'paid':
      return buildPayload('transaction_paid', { ...base, variant: d.shape, endToEndId: rightE2e });
    case 'paid_bare':
      return withoutEndToEndId(buildPayload('transaction_paid', { ...base, variant: d.shape, endToEndId: rightE2e }));
    case 'paid_wrong':
      return buildPayload('transaction_paid', { ...base, variant: d.shape, endToEndId: wrongE2e, amountInCents: 999 });
    case 'infraction':
      return buildPayload('transaction_infraction', { ...base, variant: 'b', endToEndId: rightE2e });
    case 'refunded':
      return buildPayload('transaction_refunded', { ...base, variant: 'b', endToEndId: rightE2e });
  }
}

function withoutEndToEndId(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEndToEndId);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'endToEndId')
      .map(([key, v]) => [key, withoutEndToEndId(v)]),
  );
}

/** An instance whose dedupe store can be swapped for an empty one (`forget`): the book stays shared. */
export interface ForgetfulInstance {
  book: PaymentBook;
  store(): DedupeStore;
  forget(): DedupeStore;
  wrap?: Instance['wrap'];
}

const retried: ReadonlySet<string> = new Set(['in_flight', 'store_unavailable', 'resource_busy']);

/** Runs one generated order against `instances` sharing one book; checks every money fact ran once or is held once, never both. */
export async function deliverToMany(list: RichDelivery[], instances: ForgetfulInstance[]): Promise<void> {
  const id = `tx_rich_${process.pid}_${++charges}`;
  const book = instances[0]!.book;
  await book.expect({ id, amountInCents: 1000 });
  const handled: PixEvent[] = [];
  const receiverOf = (instance: ForgetfulInstance, store: DedupeStore) => {
    const receiver = createReceiver({ secret, store, book: instance.book });
    const handler = async (event: PixEvent) => void handled.push(event);
    const names = ['transaction_created', 'transaction_paid', 'transaction_refunded', 'transaction_infraction'] as const;
    receiver.on([...names], (instance.wrap ? instance.wrap(handler) : handler) as (event: PixEvent) => Promise<void>);
    return receiver;
  };
  const receivers = instances.map((instance) => receiverOf(instance, instance.store()));
  await Promise.all(
    list.map(async (d, n) => {
      await new Promise((resolve) => setTimeout(resolve, n * 2));
      const instance = instances[d.instance] as ForgetfulInstance;
      const receiver = d.forgotten ? receiverOf(instance, instance.forget()) : (receivers[d.instance] as Receiver);
      const payload = richPayload(id, d);
      await retrying(async () => {
        let reason: string | undefined;
        if (d.channel === 'reconcile') {
          const normalized = normalizeEvent(payload, { source: 'reconcile' });
          if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('the payload does not normalize');
          reason = (await internalsOf(receiver).processing.accept(normalized.event)).reason;
        } else {
          const body = bytesOf(payload);
          const result = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
          reason = result.reason;
          if (result.status !== 200 && !retried.has(String(reason))) throw new Error(`answered ${result.status} ${String(reason)}`);
        }
        // A sender retries what is answered 503 (a store slow on a loaded machine, a resource busy with another event).
        return !retried.has(String(reason));
      });
    }),
  );

  const paidRuns = handled.filter((e) => e.kind === 'transaction' && e.name === 'transaction_paid');
  const refundRuns = handled.filter((e) => e.name === 'transaction_refunded');
  const held = (await book.held()).filter((entry) => entry.resourceId === id);
  const heldPaid = held.filter((h) => h.event.kind === 'transaction' && h.event.name === 'transaction_paid');
  const heldRight = heldPaid.filter((h) => h.event.kind === 'transaction' && h.event.transaction.amountInCents === 1000);
  const heldRefund = held.filter((h) => h.event.name === 'transaction_refunded');
  const amounts = paidRuns.map((e) => (e.kind === 'transaction' ? e.transaction.amountInCents : 0));
  // The right payment: its handlers ran exactly once, or it is held exactly once — never both.
  expect(amounts.filter((a) => a === 1000).length + heldRight.length, JSON.stringify(list)).toBe(1);
  // The wrong second payment (another endToEndId, another amount) never runs: held once when it came.
  expect(amounts.filter((a) => a === 999)).toEqual([]);
  expect(heldPaid.length - heldRight.length).toBe(list.some((d) => d.fact === 'paid_wrong') ? 1 : 0);
  // The refund: once, or held once.
  expect(refundRuns.length + heldRefund.length, JSON.stringify(list)).toBe(1);
  // Nothing applied moves backwards.
  const applied =
    (await book.get(id))?.timeline.filter((entry) => entry.outcome === 'apply' && entry.name !== 'transaction_infraction') ?? [];
  for (let i = 1; i < applied.length; i++) {
    const from = applied[i - 1]?.status as string;
    const to = applied[i]?.status as string;
    expect(from === to || isForwardTransition({ kind: 'transaction', from, to }) === true, `${from} → ${to}`).toBe(true);
  }
}
