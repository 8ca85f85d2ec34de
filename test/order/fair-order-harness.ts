// Issue 36 §5 "The order lease can be starved": a sequencer around a store's order leases that names each
// delivery's lease owner, records who was granted the lease in which order and who queued behind whom, and plays
// the adversary the issue describes: right after a lease is given back, a later arrival asks before the waiters
// do. No clock: every step waits for a fact (a take made, a ticket queued, a handler started).
import { expect } from 'vitest';
import type { DedupeStore, Receiver } from '../../src/index.js';
import { orderLeasesOf } from '../../src/processing/resource-order.js';
import { registerOrderLeases } from '../../src/shared/order-lease.js';
import { signBytes } from '../helpers/signing.js';

type Leases = ReturnType<typeof orderLeasesOf>;
type Waiter = { resolve: () => void };

export const fairSecret = 'whsec_fair_order';

/** A signed Variant A delivery. */
export function signed(event: string, id: string, status: string, amountInCents: number) {
  const body = JSON.stringify({ event, timestamp: '2026-11-27T02:00:00Z', data: { id, status, amountInCents } });
  return { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, fairSecret) }, body };
}

const isFence = (taken: unknown): taken is string => typeof taken === 'string' && taken.includes(':');

/**
 * `adversary`: after a give-back, who asks first. `fresh`: the next delivery that arrives (a stream's next event),
 * before any waiter asks again. `latest`: the waiter that queued last. Either way, a lease served in arrival order
 * still goes to the first waiter; one taken by whoever asks first goes to the later arrival.
 */
export function fairSequencer(adversary: 'fresh' | 'latest') {
  const labels = new Map<string, string>();
  const owners = new Map<string, string>();
  const grants: string[] = [];
  const takes: { label: string; taken: unknown; queued: boolean }[] = [];
  const asked: string[] = [];
  const waiting: string[] = [];
  const snapshots = new Map<string, { ahead: string[]; grantsBefore: number }>();
  const watchers: { check: () => boolean; resolve: () => void }[] = [];
  let naming: { label: string; named: () => void } | undefined;
  let naming$: Promise<void> = Promise.resolve();
  let lastGive: Promise<unknown> = Promise.resolve();
  let gate: { lets: (owner: string) => boolean; waiters: Waiter[] } | undefined;
  let expectFresh = false;
  let holder: string | undefined;

  const notify = () => {
    for (const watcher of watchers.splice(0)) {
      if (watcher.check()) watcher.resolve();
      else watchers.push(watcher);
    }
  };
  const openGate = () => {
    const opened = gate;
    gate = undefined;
    for (const waiter of opened?.waiters ?? []) waiter.resolve();
  };

  const sequencer = {
    grants,
    takes,
    /** The label of every lease ask, when it was made (`takes` has them when they were answered). */
    asked,
    /** Checks the `until` conditions again (after a fact seen elsewhere, such as a handler's start). */
    notify,
    /** Resolves once `check` holds (checked after every lease call). */
    until(check: () => boolean): Promise<void> {
      if (check()) return Promise.resolve();
      return new Promise((resolve) => watchers.push({ check, resolve }));
    },
    /** Sends one delivery; resolves (with its answer's promise) once its first lease call named its owner `label`. */
    async send<T>(label: string, send: () => Promise<T>): Promise<{ answer: Promise<T> }> {
      const previous = naming$;
      let done!: () => void;
      naming$ = new Promise<void>((resolve) => (done = resolve));
      await previous;
      const named = new Promise<void>((resolve) => (naming = { label, named: resolve }));
      const answer = send();
      await Promise.race([named, answer]);
      naming = undefined;
      done();
      return { answer };
    },
    /** `label`'s owner asked with a ticket and was refused (it waits in the queue). */
    queued: (label: string) => sequencer.until(() => snapshots.has(label)),
    granted: (label: string) => grants.includes(label),
    /** The labels that held the lease or waited before `label` queued, and the grants from then until `label`'s. */
    wait(label: string): { ahead: string[]; grantedMeanwhile: string[] } {
      const snapshot = snapshots.get(label)!;
      const at = grants.indexOf(label);
      return { ahead: snapshot.ahead, grantedMeanwhile: grants.slice(snapshot.grantsBefore, at === -1 ? undefined : at) };
    },
    /** `fresh` adversary: whether a give-back by `label` is followed by a new arrival (its stream sends again). */
    followedBy: (label: string) => label !== '',
    watch(store: DedupeStore): void {
      const leases: Leases = orderLeasesOf(store);
      registerOrderLeases(store, {
        ...leases,
        async take(resource, owner, ttlMs, ask) {
          const fresh = !owners.has(owner);
          if (fresh) {
            const label = naming?.label ?? `?${owners.size}`;
            owners.set(owner, label);
            labels.set(label, owner);
            naming?.named();
            await lastGive;
          } else {
            while (gate !== undefined && !gate.lets(owner)) await new Promise<void>((resolve) => gate!.waiters.push({ resolve }));
          }
          const label = owners.get(owner)!;
          asked.push(label);
          const taken = await leases.take(resource, owner, ttlMs, ask);
          // Waiting: refused on an ask that queues (a ticket; before tickets, every ask but none was a queue).
          const queued = taken === undefined && (ask === undefined || ask.ticketTtlMs !== undefined);
          takes.push({ label, taken, queued });
          if (isFence(taken)) {
            holder = label;
            grants.push(label);
            const at = waiting.indexOf(label);
            if (at !== -1) waiting.splice(at, 1);
          } else if (queued && !waiting.includes(label)) {
            if (!snapshots.has(label))
              snapshots.set(label, { ahead: [...(holder === undefined ? [] : [holder]), ...waiting], grantsBefore: grants.length });
            waiting.push(label);
          }
          if (fresh && expectFresh) {
            expectFresh = false;
            openGate();
          } else if (!fresh && gate !== undefined && adversary === 'latest' && gate.lets(owner)) openGate();
          notify();
          return taken;
        },
        async withdraw(resource, owner) {
          const at = waiting.indexOf(owners.get(owner) ?? '');
          if (at !== -1) waiting.splice(at, 1);
          await leases.withdraw(resource, owner);
        },
        give(resource, fence) {
          const label = [...owners].find(([owner]) => fence.endsWith(':' + owner))?.[1];
          if (label !== undefined && label === holder) holder = undefined;
          const given = leases.give(resource, fence);
          lastGive = Promise.resolve(given).catch(() => undefined);
          if (label !== undefined && grants.includes(label)) {
            // A gate still closed (its fresh arrival asked but was not answered yet) is replaced: the waiters parked
            // at it park at the new one, or they would never be let through (fair-order-harness.test.ts).
            const parked = gate?.waiters ?? [];
            if (adversary === 'fresh' && sequencer.followedBy(label)) {
              expectFresh = true;
              gate = { lets: () => false, waiters: parked };
            } else if (adversary === 'latest' && waiting.length > 1) {
              const latest = labels.get(waiting[waiting.length - 1]!)!;
              gate = { lets: (owner) => owner === latest, waiters: parked };
            }
          }
          notify();
          return given;
        },
      });
    },
  };
  return sequencer;
}

/** One charge's handlers, recorded in start order; `hold` keeps the first run of `label` waiting until opened. */
export function gatedHandlers(seen: () => void) {
  const started: string[] = [];
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    started,
    open,
    register(receiver: Receiver, gated: (amountInCents: number) => boolean): void {
      receiver.on(['transaction_updated', 'transaction_paid'], async (event) => {
        if (event.kind !== 'transaction') return;
        started.push(`${event.name}:${event.transaction.amountInCents}`);
        seen();
        if (gated(event.transaction.amountInCents)) await opened;
      });
    },
  };
}

/**
 * Three streams of signed `transaction_updated` for one charge, each sending its next event as soon as the last
 * is answered, and the genuine `transaction_paid` sent (up to 3 attempts, as a gateway retries a 503) while the
 * first stream's first event holds the lease and the other streams' first events wait. Returns what the paid
 * met: the answers of its attempts and, from the sequencer, who was ahead of it at arrival and who was served
 * from then until it.
 */
export async function threeStreamsAndPaid(receivers: readonly Receiver[], sequencer: ReturnType<typeof fairSequencer>, charge: string) {
  const perStream = 6;
  const handlers = gatedHandlers(sequencer.notify);
  const first = 1_000;
  for (const receiver of receivers) handlers.register(receiver, (amount) => amount === first);
  const on = (i: number) => receivers[i % receivers.length]!;
  const label = (stream: number, n: number) => `s${stream}e${n}`;
  const amountOf = (stream: number, n: number) => first + stream * 100 + n;
  sequencer.followedBy = (name) => /^s\d+e\d+$/.test(name) && Number(name.slice(name.indexOf('e') + 1)) < perStream - 1;
  const answers: Promise<number[]>[] = [];
  const stream = (s: number, started: { answer: Promise<{ status: number }> }) =>
    answers.push(
      (async () => {
        const statuses = [(await started.answer).status];
        for (let n = 1; n < perStream; n++) {
          const next = await sequencer.send(label(s, n), () =>
            on(s + n).receive(signed('transaction_updated', charge, 'pending', amountOf(s, n))),
          );
          statuses.push((await next.answer).status);
        }
        return statuses;
      })(),
    );
  // Stream 0's first event holds the lease (its handler waits); streams 1 and 2 queue behind it.
  const holding = await sequencer.send(label(0, 0), () => on(0).receive(signed('transaction_updated', charge, 'pending', first)));
  await sequencer.until(() => handlers.started.length === 1);
  for (const s of [1, 2]) {
    const started = await sequencer.send(label(s, 0), () =>
      on(s).receive(signed('transaction_updated', charge, 'pending', amountOf(s, 0))),
    );
    await sequencer.queued(label(s, 0));
    stream(s, started);
  }
  // The genuine payment arrives; once it waits, the first event ends and the streams go on.
  const paidStatuses: number[] = [];
  const paid = (async () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const sent = await sequencer.send(`paid#${attempt}`, () => on(attempt).receive(signed('transaction_paid', charge, 'paid', 5_000)));
      const { status } = await sent.answer;
      paidStatuses.push(status);
      if (status !== 503) return;
    }
  })();
  await sequencer.queued('paid#1');
  stream(0, holding);
  handlers.open();
  await paid;
  const streamStatuses = await Promise.all(answers);
  return { paidStatuses, streamStatuses, started: handlers.started, paidWait: sequencer.wait('paid#1') };
}

/**
 * Arrival order across instances, asserted: `h` holds the charge's lease (its handler waits) on the first receiver; four
 * waiters arrive one after another, alternating receivers, each queued before the next is sent. Then `h` ends.
 */
export async function arrivalOrder(receivers: readonly Receiver[], sequencer: ReturnType<typeof fairSequencer>, charge: string) {
  const handlers = gatedHandlers(sequencer.notify);
  for (const receiver of receivers) handlers.register(receiver, (amount) => amount === 1_000);
  const holding = await sequencer.send('h', () => receivers[0]!.receive(signed('transaction_updated', charge, 'pending', 1_000)));
  await sequencer.until(() => handlers.started.length === 1);
  const answers = [holding.answer];
  for (let i = 1; i <= 4; i++) {
    const sent = await sequencer.send(`w${i}`, () =>
      receivers[i % receivers.length]!.receive(signed('transaction_updated', charge, 'pending', 1_000 + i)),
    );
    await sequencer.queued(`w${i}`);
    answers.push(sent.answer);
  }
  handlers.open();
  const statuses = (await Promise.all(answers)).map((answer) => answer.status);
  // Served in the order they arrived (whoever asked first after each give-back), each handled once.
  expect(sequencer.grants).toEqual(['h', 'w1', 'w2', 'w3', 'w4']);
  expect(handlers.started.map((started) => Number(started.split(':')[1]) - 1_000)).toEqual([0, 1, 2, 3, 4]);
  expect(statuses).toEqual([200, 200, 200, 200, 200]);
}

/** Eight streams resending captured deliveries already handled, five times each, all at once. */
export async function replayStreams(receivers: readonly Receiver[], sequencer: ReturnType<typeof fairSequencer>, charge: string) {
  const captured = Array.from({ length: 8 }, (_, i) => signed('transaction_updated', charge, 'pending', 2_000 + i));
  for (const request of captured) {
    const first = await receivers[0]!.receive(request);
    if (first.status !== 200) throw new Error(`the captured delivery was answered ${first.status}`);
  }
  const streams = captured.map(async (request, i) => {
    const bodies: string[] = [];
    for (let k = 0; k < 5; k++) {
      const sent = await sequencer.send(`r${i}#${k}`, () => receivers[(i + k) % receivers.length]!.receive(request));
      bodies.push((await sent.answer).body);
    }
    return bodies;
  });
  // Every stream is under way before the genuine payment arrives.
  await sequencer.until(() => sequencer.takes.filter((take) => take.label.startsWith('r')).length >= 8);
  const paid = await sequencer.send('paid', () =>
    receivers[1 % receivers.length]!.receive(signed('transaction_paid', charge, 'paid', 5_000)),
  );
  const paidAnswer = await paid.answer;
  const bodies = (await Promise.all(streams)).flat();
  // An ask answered after its delivery's answer (the prefetch beside the claim) is waited for too.
  await sequencer.until(() => sequencer.takes.length === sequencer.asked.length);
  return { paidAnswer, replayBodies: bodies };
}

/** What `threeStreamsAndPaid` must show: the paid waited only for the events ahead of it at arrival. */
export function expectServedInArrivalOrder(met: Awaited<ReturnType<typeof threeStreamsAndPaid>>): void {
  // Ahead at arrival: the first event (holding the lease) and the two others' first events (queued).
  expect(met.paidWait.ahead).toEqual(['s0e0', 's1e0', 's2e0']);
  // Served from then until the paid: only those already waiting, in their order; then the paid.
  expect(met.paidWait.grantedMeanwhile).toEqual(['s1e0', 's2e0']);
  // Handled on the sender's first attempt, once, fourth: after the three ahead of it, before every later event.
  expect(met.paidStatuses).toEqual([200]);
  expect(met.started.indexOf('transaction_paid:5000')).toBe(3);
  expect(met.started.filter((started) => started === 'transaction_paid:5000')).toHaveLength(1);
  expect(met.streamStatuses.flat().every((status) => status === 200)).toBe(true);
}
