// Issue 36 "Done when" (§1): safety and liveness as one property. A charge's facts (created, paid in Variant A, B
// and the short form, with and without its endToEndId, a wrong second payment, the refund) arrive through the
// postback, the reconciler and a replay, to two or three instances sharing one book and one store, while their
// handlers fail at random (a throw, a hang past handlerTimeoutMs) and, in some runs, every done mark expires at
// once. The sender retries as a gateway does (5xx and in_flight are retried); afterwards the reconciler sweeps
// every genuine fact once more and a person releases what the book holds for the right amount. Then every
// genuine fact ran its handlers successfully exactly once, never twice, and the wrong payment is held and never ran.
// (The SIGKILL of an instance mid-handler is test/redis/applied-on-success.test.ts; API Pix items are in the scenarios.)
// Durable mode (memory): the receivers only queue and one worker, `processing.runQueued`, runs each job again until
// it resolves, as the queue does; the same holds.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/adapter-kit/index.js';
import {
  createProcessing,
  createReceiver,
  memoryDedupeStore,
  memoryPaymentBook,
  normalizeEvent,
  type DedupeStore,
  type HandlerContext,
  type PaymentBook,
  type PixEvent,
  type QueuedEvent,
  type Receiver,
} from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { richPayload } from './two-instance-permutations.js';

const secret = 'whsec_applied_property';

type Fact = 'created' | 'paid' | 'paid_bare' | 'paid_wrong' | 'refunded';
type Door = 'postback' | 'reconcile' | 'replay';
type Fault = 'ok' | 'throw' | 'timeout';
interface Delivery {
  fact: Fact;
  shape: 'a' | 'b' | 'short';
  door: Door;
  instance: number;
}
interface Plan {
  deliveries: Delivery[];
  /** Consumed one per handler call, in order; `ok` once used up. */
  faults: Fault[];
  /** Every done mark expires at once (dedupeTtlMs 1 ms): every copy reaches the book again. */
  expired: boolean;
}

const delivery = (instances: number) =>
  fc.record({
    fact: fc.constantFrom<Fact>('created', 'paid', 'paid_bare', 'paid_wrong', 'refunded'),
    shape: fc.constantFrom<'a' | 'b' | 'short'>('a', 'b', 'short'),
    door: fc.constantFrom<Door>('postback', 'reconcile', 'replay'),
    instance: fc.nat(instances - 1),
  });

const plans = (instances: number) =>
  fc.record({
    deliveries: fc
      .tuple(delivery(instances), fc.array(delivery(instances), { maxLength: 5 }))
      .map(([paid, rest]) => [{ ...paid, fact: 'paid' as const }, ...rest]),
    faults: fc.array(fc.constantFrom<Fault>('ok', 'throw', 'throw', 'timeout'), { maxLength: 4 }),
    expired: fc.boolean(),
  });

/** The delivery's body: a postback's shape whatever door carries it (the reconciler and a replay read it as theirs). */
const payload = (id: string, d: Delivery): unknown => richPayload(id, { fact: d.fact, shape: d.shape, channel: 'postback' });

/** What the sender (or the reconciler, or a replay's caller) does again: every 5xx answer and in_flight. */
const retried: ReadonlySet<string> = new Set(['in_flight', 'store_unavailable', 'resource_busy', 'handler_failed', 'handler_timeout']);

interface Setup {
  book: PaymentBook;
  /** The store of instance `i` (instances of one setup share the same one, or one on the same server). */
  store(i: number): DedupeStore | undefined;
}

let charges = 0;

type Mode = 'inline' | 'background' | 'durable';
const eventNames = ['transaction_created', 'transaction_paid', 'transaction_refunded'] as const;

async function deliverPlan(plan: Plan, setup: Setup, instances: number, mode: Mode): Promise<void> {
  const id = `tx_door_${process.pid}_${++charges}`;
  const { book } = setup;
  await book.expect({ id, amountInCents: 1000 });
  const faults = plan.faults.slice();
  const ran: PixEvent[] = [];
  const handler = async (event: PixEvent, context: HandlerContext) => {
    const fault = faults.shift() ?? 'ok';
    if (fault === 'throw') throw new Error('transient');
    if (fault === 'timeout') {
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
      return;
    }
    ran.push(event);
  };
  // Durable: the receivers only claim and queue; a worker (processing.runQueued) runs the jobs, as BullMQ would:
  // a rejected run (a throw, a timeout, the charge busy) is run again.
  const jobs: QueuedEvent[] = [];
  const worker =
    mode === 'durable' ? createProcessing({ book, handlerTimeoutMs: 120, orderWaitMs: 3_000 }).on(eventNames, handler) : undefined;
  const modeOptions =
    mode === 'inline'
      ? { deadlineMs: 40 }
      : mode === 'background'
        ? { retry: { attempts: 2, backoff: { delayMs: 1 } } }
        : { queue: { enqueue: async (job: QueuedEvent) => void jobs.push(job) } };
  const receivers: Receiver[] = Array.from({ length: instances }, (_, i) => {
    const store = setup.store(i);
    return createReceiver({
      secret,
      book,
      mode,
      ...(store !== undefined && { store }),
      handlerTimeoutMs: 120,
      ...modeOptions,
      ...(plan.expired && { dedupeTtlMs: 1 }),
      claimTtlMs: 2_000,
      orderWaitMs: 3_000,
    }).on(eventNames, handler);
  });

  /** The worker's side: every queued job until none is left, each run again until it resolves. */
  async function work(): Promise<void> {
    if (worker === undefined) return;
    while (jobs.length > 0) {
      await Promise.all(
        jobs.splice(0).map(async (job) => {
          for (let attempt = 1; attempt <= 100; attempt++) {
            try {
              return await worker.runQueued(job, { attempt, final: false });
            } catch {
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          }
          throw new Error(`queued job ${job.key} still failing after 100 runs`);
        }),
      );
    }
  }

  async function send(d: Delivery): Promise<void> {
    const receiver = receivers[d.instance] as Receiver;
    const body = payload(id, d);
    for (let attempt = 0; attempt < 300; attempt++) {
      let reason: string | undefined;
      if (d.door === 'postback') {
        const bytes = bytesOf(body);
        const result = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(bytes, secret) }, body: bytes });
        reason = result.status === 200 ? result.reason : (result.reason ?? `status ${result.status}`);
      } else {
        const normalized = normalizeEvent(body, { source: d.door });
        if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('the payload does not normalize');
        const options = d.door === 'replay' ? { replayOf: `replay-${attempt}` } : {};
        reason = (await internalsOf(receiver).processing.accept(normalized.event, options)).reason;
      }
      if (!retried.has(String(reason))) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('still refused after 300 attempts');
  }

  await Promise.all(
    plan.deliveries.map(async (d, n) => {
      await new Promise((resolve) => setTimeout(resolve, n * 3));
      await send(d);
    }),
  );
  await Promise.all(receivers.map((receiver) => receiver.drain()));
  await work();
  // The reconciler's sweep: every genuine fact once more (background runs that failed for good are found here).
  for (const fact of ['paid', 'refunded'] as const) await send({ fact, shape: 'b', door: 'reconcile', instance: 0 });
  await Promise.all(receivers.map((receiver) => receiver.drain()));
  await work();
  // A person releases what is held for the right amount (a payment held as stale after the refund); a failed
  // release stays held and is released again.
  for (const held of (await book.held()).filter((entry) => entry.resourceId === id)) {
    const event = held.event;
    if (event.kind !== 'transaction' || event.transaction.amountInCents !== 1000) continue;
    for (let attempt = 0; attempt < 20; attempt++) {
      const released = await (worker ?? (receivers[0] as Receiver)).release(held.heldId);
      if (released.ok || released.reason !== 'handler_failed') break;
    }
  }

  const runs = (name: string, amount: number) =>
    ran.filter((event) => event.kind === 'transaction' && event.name === name && event.transaction.amountInCents === amount).length;
  const context = JSON.stringify(plan);
  expect(runs('transaction_paid', 1000), context).toBe(1);
  expect(runs('transaction_refunded', 1000), context).toBe(1);
  expect(runs('transaction_created', 1000), context).toBeLessThanOrEqual(1);
  expect(runs('transaction_paid', 999), context).toBe(0);
  const wrongHeld = (await book.held()).filter(
    (entry) => entry.resourceId === id && entry.event.kind === 'transaction' && entry.event.transaction.amountInCents === 999,
  );
  expect(wrongHeld.length, context).toBe(plan.deliveries.some((d) => d.fact === 'paid_wrong') ? 1 : 0);
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await worker?.close();
}

const modes = ['inline', 'background'] as const;
const runsPer = 6;

describe.each(modes)('issue 36: every genuine fact runs once, never twice; a wrong payment never runs (%s)', (mode) => {
  const targets = useRedisTargets();
  let postgres: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  const inboxes: PostgresInbox[] = [];
  let tables = 0;
  beforeAll(async () => {
    postgres = await startPostgresServer();
    pool = new pg.Pool({ connectionString: postgres.url, max: 20 });
    pool.on('error', () => {});
  }, 60_000);
  afterAll(async () => {
    await Promise.all(inboxes.map((inbox) => inbox.close()));
    await pool?.end();
    await postgres?.dispose();
  }, 60_000);

  it('memory: three instances sharing the book and the store objects', async () => {
    await fc.assert(
      fc.asyncProperty(plans(3), (plan) => {
        const store = memoryDedupeStore();
        return deliverPlan(plan, { book: memoryPaymentBook(), store: () => store }, 3, mode);
      }),
      { numRuns: runsPer * 2, seed: 36 },
    );
  }, 120_000);

  it.each(redisTargetNames)(
    'redis (%s): two instances, each with its own client',
    async (name) => {
      const clients = [targets(name).client, targets(name).connect()];
      let prefixes = 0;
      await fc.assert(
        fc.asyncProperty(plans(2), (plan) => {
          const prefix = `{door-p-${mode}-${++prefixes}}:`;
          const stores = clients.map((client) => redisDedupeStore({ client, prefix, quarantine: false }));
          const book = redisPaymentBook({ client: clients[0]!, prefix: prefix + 'book:' });
          return deliverPlan(plan, { book, store: (i) => stores[i] }, 2, mode);
        }),
        { numRuns: runsPer, seed: 36 },
      );
    },
    120_000,
  );

  it.each([false, true])(
    'postgres (with the inbox: %s): two instances',
    async (withInbox) => {
      await fc.assert(
        fc.asyncProperty(plans(2), async (plan) => {
          const table = `door_${process.pid}_${++tables}`;
          let store: DedupeStore = memoryDedupeStore();
          let inbox: PostgresInbox | undefined;
          if (withInbox) {
            inbox = postgresInbox({ pool: pool!, table: table + '_inbox' });
            inboxes.push(inbox);
            await inbox.migrate();
            store = inbox.store;
          }
          const book = postgresPaymentBook({ db: pool!, table: table + '_book', ...(inbox !== undefined && { inbox }) });
          await book.migrate();
          return deliverPlan(plan, { book, store: () => store }, 2, mode);
        }),
        { numRuns: runsPer, seed: 36 },
      );
    },
    120_000,
  );
});

describe('issue 36, durable mode: every genuine fact runs once on the worker, never twice; a wrong payment never runs', () => {
  it('memory: three receivers queue, one worker runs the jobs (processing.runQueued)', async () => {
    await fc.assert(
      fc.asyncProperty(plans(3), (plan) => {
        const store = memoryDedupeStore();
        return deliverPlan(plan, { book: memoryPaymentBook(), store: () => store }, 3, 'durable');
      }),
      { numRuns: runsPer * 2, seed: 36 },
    );
  }, 120_000);
});
