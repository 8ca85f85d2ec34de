// Issue 36 "Done when" (§1): the one model and the one invariant of the applied-on-success properties
// (applied-on-success.property.test.ts: every setup and mode; applied-on-success-kill.property.test.ts: an instance
// SIGKILLed mid-handler). A charge's facts arrive through the postback (a gateway delivery, or an API Pix call of one
// or several items), the reconciler and a replay, to two or three instances sharing one book, while their handlers
// fail at random (a throw, a hang past handlerTimeoutMs) and, in some runs, every done mark expires at once. The
// sender retries as a gateway does (every 5xx; a refused connection goes to another instance); afterwards the
// reconciler sweeps every genuine fact once more and a person releases what the book holds for the right amount
// (in half the plans the charge expired before it was paid and the policy holds that: the payment waits for the release).
// Then every genuine fact ran its handlers successfully exactly once, never twice, and the wrong payment is held and
// never ran.
//   - gateway: created, paid (Variant A, B and short; with and without its endToEndId), a wrong second payment
//     (another endToEndId, 999 cents), two partial refunds (R1, R2), each its own fact;
//   - API Pix: the Pix, a second Pix on the same txid for the wrong amount, its devolução at each status
//     (EM_PROCESSAMENTO, then DEVOLVIDO or NAO_REALIZADO: each status its own fact), and a call of several items
//     (the Pix and a Pix without txid, its own charge).
// Durable mode: the receivers only claim and queue; a worker runs the jobs with the book (`Durable`).
import fc from 'fast-check';
import { expect } from 'vitest';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createApiPixReceiver, readPixItem } from '../../src/api-pix/index.js';
import {
  createProcessing,
  createReceiver,
  normalizeEvent,
  type DedupeStore,
  type EventQueue,
  type HandlerContext,
  type PaymentBook,
  type PixEvent,
  type Processing,
  type QueuedEvent,
  type Receiver,
} from '../../src/index.js';
import { apiPixBody, apiPixPix, apiPixRefund, buildPayload, seededRandom, type ApiPixPix } from '../../src/testing/index.js';
import { call, urlSecret } from '../api-pix/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { richPayload } from './two-instance-permutations.js';

export const secret = 'whsec_applied_property';

export type Profile = 'gateway' | 'api-pix';
const gatewayFacts = ['created', 'paid', 'paid_bare', 'paid_wrong', 'refund_1', 'refund_2'] as const;
const apiPixFacts = ['pix', 'pix_wrong', 'pix_refund_processing', 'pix_refund_final', 'pix_batch'] as const;
export type Fact = (typeof gatewayFacts)[number] | (typeof apiPixFacts)[number];
export type Door = 'postback' | 'reconcile' | 'replay';
export type Fault = 'ok' | 'throw' | 'timeout';
export type Mode = 'inline' | 'background' | 'durable';
export interface Delivery {
  fact: Fact;
  shape: 'a' | 'b' | 'short';
  door: Door;
  instance: number;
}
export interface Plan {
  profile: Profile;
  /** The devolução's final status (API Pix). */
  terminal: 'DEVOLVIDO' | 'NAO_REALIZADO';
  /** The first is the payment, by postback to instance 0 (the instance a kill property kills). */
  deliveries: Delivery[];
  /** Consumed one per handler call, in order; `ok` once used up. */
  faults: Fault[];
  /** Every done mark expires at once (dedupeTtlMs 1 ms): every copy reaches the book again. */
  expired: boolean;
  /**
   * The charge expired before it was paid, and the policy holds `paid_after_expiry`: the genuine payment is held
   * for a person, who releases it (the release door). No money goes back in such a plan (a returned refund since
   * the hold would refuse the release, `refunded_since_held`): the gateway's refunds are left out, and the
   * devolução ends NAO_REALIZADO.
   */
  review: boolean;
}

const delivery = (instances: number, facts: readonly Fact[]) =>
  fc.record({
    fact: fc.constantFrom(...facts),
    shape: fc.constantFrom<'a' | 'b' | 'short'>('a', 'b', 'short'),
    door: fc.constantFrom<Door>('postback', 'reconcile', 'replay'),
    instance: fc.nat(instances - 1),
  });

/** A charge's plan: its payment first (by postback to instance 0), then up to five more of anything, faults, expiry. */
export const plans = (instances: number, options: { maxFaults?: number; review?: false } = {}): fc.Arbitrary<Plan> =>
  fc.constantFrom<Profile>('gateway', 'api-pix').chain((profile) => {
    const facts = profile === 'gateway' ? gatewayFacts : apiPixFacts;
    return fc
      .record({
        profile: fc.constant(profile),
        terminal: fc.constantFrom<'DEVOLVIDO' | 'NAO_REALIZADO'>('DEVOLVIDO', 'NAO_REALIZADO'),
        deliveries: fc
          .tuple(delivery(instances, facts), fc.array(delivery(instances, facts), { maxLength: 5 }))
          .map(([first, rest]) => [
            { ...first, fact: profile === 'gateway' ? ('paid' as const) : ('pix' as const), door: 'postback' as const, instance: 0 },
            ...rest,
          ]),
        faults: fc.array(fc.constantFrom<Fault>('ok', 'throw', 'throw', 'timeout'), { maxLength: options.maxFaults ?? 4 }),
        expired: fc.boolean(),
        review: options.review === false ? fc.constant(false) : fc.boolean(),
      })
      .map((plan) =>
        plan.review
          ? {
              ...plan,
              terminal: 'NAO_REALIZADO' as const,
              deliveries: plan.deliveries.map((d) =>
                d.fact === 'refund_1' || d.fact === 'refund_2' ? { ...d, fact: 'created' as const } : d,
              ),
            }
          : plan,
      );
  });

/** Every 5xx (and, through processing, each reason a 5xx carries): the sender, a reconciler or a replay's caller tries again. */
const retried: ReadonlySet<string> = new Set(['in_flight', 'store_unavailable', 'resource_busy', 'handler_failed', 'handler_timeout']);

/** How the jobs of durable mode are run: a queue for the receivers, a worker over `processing`. */
export interface Durable {
  open(processing: Processing): Promise<{ queue: EventQueue; settle(): Promise<void>; close(): Promise<void> }>;
}

/** Durable in process: the jobs kept in an array, each run by `processing.runQueued` again until it resolves (as BullMQ does). */
export const inProcessDurable: Durable = {
  open: async (processing) => {
    const jobs: QueuedEvent[] = [];
    const settle = async () => {
      while (jobs.length > 0) {
        await Promise.all(
          jobs.splice(0).map(async (job) => {
            for (let attempt = 1; attempt <= 100; attempt++) {
              try {
                return await processing.runQueued(job, { attempt, final: false });
              } catch {
                await new Promise((resolve) => setTimeout(resolve, 5));
              }
            }
            throw new Error(`queued job ${job.key} still failing after 100 runs`);
          }),
        );
      }
    };
    return { queue: { enqueue: async (job: QueuedEvent) => void jobs.push(job) }, settle, close: async () => {} };
  },
};

export interface Setup {
  book: PaymentBook;
  /** The store of instance `i` (instances of one setup share the same one, or one on the same server). */
  store(i: number): DedupeStore | undefined;
  /** Durable mode's queue and worker (default: in process). */
  durable?: Durable;
}

/** An instance in another process, reached over HTTP, that a kill property SIGKILLs while its first handler runs. */
export interface Remote {
  /** One delivery over HTTP: its status and reason, or status 0 when the connection failed (the process is gone). */
  post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; reason?: string }>;
  /** Resolves when the remote's handler has started (it then never returns). */
  holding(): Promise<void>;
  kill(): Promise<void>;
  /** The labels of the remote's successful handler runs (its stdout). */
  ran(): string[];
}

let charges = 0;
const eventNames = ['transaction_created', 'transaction_paid', 'transaction_refunded', 'pix_received', 'pix_refund_updated'] as const;
const rightE2e = 'E12345678202605011200aaaaaaaaaaa';

/** What a handler run is counted as: one label per fact. */
export function labelOf(event: PixEvent): string {
  if (event.name === 'pix_received') return `pix:${event.pix.endToEndId}`;
  if (event.name === 'pix_refund_updated') return `refund:${event.refund.id}/${event.refund.status}`;
  if (event.kind !== 'transaction') return event.name;
  const refund = event.transaction.refund?.id;
  return `${event.name}@${event.transaction.amountInCents}${refund === undefined ? '' : '#' + refund}`;
}

/** One plan's charge: its ids and the body of each fact. */
export function chargeOf(plan: Plan, seed: number) {
  const n = ++charges;
  const random = seededRandom(seed * 1_000 + n);
  const id = plan.profile === 'gateway' ? `tx_door_${process.pid}_${n}_${seed}` : `txdoor${process.pid}n${n}s${seed}`;
  const pix = apiPixPix({ txid: id, amountInCents: 1000, random });
  const wrong = apiPixPix({ txid: id, amountInCents: 999, random });
  const bare = apiPixPix({ txid: null, amountInCents: 300, random });
  const processing = apiPixRefund({ id: 'd1', amountInCents: 1000, status: 'EM_PROCESSAMENTO', random });
  const at = processing.horario.solicitacao;
  const final = { ...processing, status: plan.terminal, horario: { solicitacao: at, liquidacao: at } };
  const items: Partial<Record<Fact, ApiPixPix[]>> = {
    pix: [pix],
    pix_wrong: [wrong],
    pix_refund_processing: [{ ...pix, devolucoes: [processing] }],
    pix_refund_final: [{ ...pix, devolucoes: [final] }],
    pix_batch: [pix, bare],
  };
  const gateway = (d: Delivery): unknown => {
    if (d.fact !== 'refund_1' && d.fact !== 'refund_2')
      return richPayload(id, { fact: d.fact as 'paid', shape: d.shape, channel: 'postback' });
    const refund = { id: d.fact === 'refund_1' ? 'R1' : 'R2', amountInCents: 500 };
    return buildPayload('transaction_refunded', {
      variant: d.shape === 'a' ? 'a' : 'b',
      seed: 7,
      id,
      amountInCents: 1000,
      endToEndId: rightE2e,
      refund,
    });
  };
  const terminal = plan.terminal === 'DEVOLVIDO' ? 'returned' : 'not_returned';
  /** Each genuine fact's label, once; the wrong payment's label, never. */
  const genuine =
    plan.profile === 'gateway'
      ? ['transaction_paid@1000', ...(plan.review ? [] : ['transaction_refunded@1000#R1', 'transaction_refunded@1000#R2'])]
      : [`pix:${pix.endToEndId}`, 'refund:d1/processing', `refund:d1/${terminal}`, `pix:${bare.endToEndId}`];
  const wrongLabel = plan.profile === 'gateway' ? 'transaction_paid@999' : `pix:${wrong.endToEndId}`;
  /** The reconciler's sweep: every genuine fact once more. */
  const sweep: Fact[] =
    plan.profile === 'gateway'
      ? ['paid', ...(plan.review ? [] : (['refund_1', 'refund_2'] as const))]
      : ['pix', 'pix_refund_processing', 'pix_refund_final', 'pix_batch'];
  const resources = plan.profile === 'gateway' ? [id] : [id, `e2e:${bare.endToEndId}`];
  return { id, items, gateway, genuine, wrongLabel, sweep, resources, wrongE2e: wrong.endToEndId };
}

/** The sender's request of one postback: a signed gateway delivery, or an API Pix call. */
function requestOf(
  plan: Plan,
  charge: ReturnType<typeof chargeOf>,
  d: Delivery,
): { path: string; body: string; headers: Record<string, string> } {
  if (plan.profile === 'api-pix') {
    const body = apiPixBody(charge.items[d.fact]!);
    return { path: `/pix?secret=${urlSecret}`, body, headers: { 'content-type': 'application/json' } };
  }
  const body = JSON.stringify(charge.gateway(d));
  return { path: '/', body, headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, secret) } };
}

/** The events a reconciler (or a replay) reads from the fact's body. */
function eventsOf(plan: Plan, charge: ReturnType<typeof chargeOf>, d: Delivery, source: 'reconcile' | 'replay'): PixEvent[] {
  if (plan.profile === 'api-pix') return charge.items[d.fact]!.flatMap((item) => readPixItem(item, 'pix.0', source).events);
  const normalized = normalizeEvent(charge.gateway(d), { source });
  if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('the payload does not normalize');
  return [normalized.event];
}

/** Runs one plan on `instances` instances of `setup` in `mode` (instance 0 is `remote` when given) and checks the invariant. */
export async function deliverPlan(plan: Plan, setup: Setup, instances: number, mode: Mode, seed = 36, remote?: Remote): Promise<void> {
  const charge = chargeOf(plan, seed);
  const { book } = setup;
  await book.expect({ id: charge.id, amountInCents: 1000, ...(plan.review && { expiresAt: '2000-01-01T00:00:00Z' }) });
  const faults = plan.faults.slice();
  const ran: string[] = [];
  const handler = async (event: PixEvent, context: HandlerContext) => {
    const fault = faults.shift() ?? 'ok';
    if (fault === 'throw') throw new Error('transient');
    if (fault === 'timeout') {
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
      return;
    }
    ran.push(labelOf(event));
  };
  const expiry = { ...(plan.expired && { dedupeTtlMs: 1 }), ...(plan.review && { policy: { paid_after_expiry: 'hold' as const } }) };
  // Durable: the receivers only claim and queue; a worker runs the jobs with the book, each again until it resolves.
  const worker =
    mode === 'durable'
      ? createProcessing({ book, handlerTimeoutMs: 120, orderWaitMs: 3_000, ...expiry }).on(eventNames, handler)
      : undefined;
  const durable = worker === undefined ? undefined : await (setup.durable ?? inProcessDurable).open(worker);
  const modeOptions =
    mode === 'inline'
      ? { deadlineMs: 40 }
      : mode === 'background'
        ? { retry: { attempts: 2, backoff: { delayMs: 1 } } }
        : { queue: durable!.queue };
  const receivers: Receiver[] = Array.from({ length: instances }, (_, i) => {
    const store = setup.store(i);
    const options = {
      book,
      mode,
      ...(store !== undefined && { store }),
      handlerTimeoutMs: 120,
      ...modeOptions,
      ...expiry,
      claimTtlMs: 2_000,
      orderWaitMs: 3_000,
    };
    const receiver =
      plan.profile === 'gateway'
        ? createReceiver({ secret, ...options })
        : createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } }, ...options });
    return receiver.on(eventNames, handler);
  });
  let remoteDead = false;

  async function postback(d: Delivery): Promise<{ status: number; reason?: string }> {
    const request = requestOf(plan, charge, d);
    if (d.instance === 0 && remote !== undefined && !remoteDead) {
      const answer = await remote.post(request.path, request.body, request.headers);
      if (answer.status !== 0) return answer;
      // The connection failed: the sender retries, and the load balancer sends it to another instance.
      remoteDead = true;
    }
    const receiver = receivers[remote !== undefined && d.instance === 0 ? 1 : d.instance] as Receiver;
    const body = bytesOf(request.body);
    const result = await receiver.receive(
      plan.profile === 'gateway' ? { method: 'POST', headers: request.headers, body } : call(request.body),
    );
    return result;
  }

  async function send(d: Delivery): Promise<void> {
    for (let attempt = 0; attempt < 300; attempt++) {
      let again = false;
      if (d.door === 'postback') {
        const answer = await postback(d);
        again = answer.status >= 500 || answer.status === 0;
      } else {
        const receiver = receivers[remote !== undefined && d.instance === 0 ? 1 : d.instance] as Receiver;
        const options = d.door === 'replay' ? { replayOf: `replay-${attempt}` } : {};
        for (const event of eventsOf(plan, charge, d, d.door)) {
          const reason = (await internalsOf(receiver).processing.accept(event, options)).reason;
          if (retried.has(String(reason))) again = true;
        }
      }
      if (!again) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('still refused after 300 attempts');
  }

  const [first, ...rest] = plan.deliveries;
  const sending: Promise<void>[] = [send(first!)];
  if (remote !== undefined) {
    // The remote instance runs the payment's handler first; killed there, the sender's retry goes elsewhere.
    await remote.holding();
    await remote.kill();
  }
  sending.push(
    ...rest.map(async (d, n) => {
      await new Promise((resolve) => setTimeout(resolve, (n + 1) * 3));
      await send(d);
    }),
  );
  await Promise.all(sending);
  const settle = async () => {
    await Promise.all(receivers.map((receiver) => receiver.drain()));
    await durable?.settle();
  };
  await settle();
  // The reconciler's sweep: every genuine fact once more (background runs that failed for good are found here).
  for (const fact of charge.sweep) await send({ fact, shape: 'b', door: 'reconcile', instance: instances - 1 });
  await settle();
  // A person releases what is held, except the wrong payment (a payment held as stale after the refund); a failed
  // release stays held and is released again.
  const isWrong = (event: PixEvent) => labelOf(event) === charge.wrongLabel;
  const heldOfCharge = async () => (await book.held()).filter((entry) => charge.resources.includes(entry.resourceId));
  // A payment held (as stale) before a refund applied is refused as `refunded_since_held`: the money went back since.
  const refused: string[] = [];
  for (const held of (await heldOfCharge()).filter((entry) => !isWrong(entry.event))) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const released = await (worker ?? (receivers[instances - 1] as Receiver)).release(held.heldId);
      if (!released.ok && released.reason === 'refunded_since_held') refused.push(labelOf(held.event));
      if (released.ok || released.reason !== 'handler_failed') break;
    }
  }

  const all = [...ran, ...(remote?.ran() ?? [])];
  const runs = (label: string) => all.filter((entry) => entry === label).length;
  const context = JSON.stringify(plan);
  for (const label of charge.genuine) expect(runs(label), `${label} ${context}`).toBe(refused.includes(label) ? 0 : 1);
  // Only a payment is ever refused so, and only on the gateway's two refunds (one may be applied after the hold).
  expect(
    refused.every((label) => label === 'transaction_paid@1000' && !plan.review),
    context,
  ).toBe(true);
  // …and it stays held, for a person to dismiss: never run, never lost from the list.
  const stillHeld = (await heldOfCharge()).map((entry) => labelOf(entry.event));
  for (const label of refused) expect(stillHeld, context).toContain(label);
  expect(runs('transaction_created@1000'), context).toBeLessThanOrEqual(1);
  expect(runs(charge.wrongLabel), context).toBe(0);
  const wrongHeld = (await heldOfCharge()).filter((entry) => isWrong(entry.event));
  const wrongSent = plan.deliveries.some((d) => d.fact === 'paid_wrong' || d.fact === 'pix_wrong');
  expect(wrongHeld.length, context).toBe(wrongSent ? 1 : 0);
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await durable?.close();
  await worker?.close();
}
