import { resourceKey } from '../book/book-state.js';
import { createClaimKeeper, type HeldClaim } from '../dedupe/claim-keeper.js';
import type { DedupeStore } from '../dedupe/dedupe-store.js';
import type { PixEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import { isFence, registeredOrderLeases, registerOrderLeases, type OrderLeases, type Taken } from '../shared/order-lease.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { ClaimedRun } from './acknowledgement.js';
import { memoryOrderLeases } from './memory-order-leases.js';
import { createRunLeaseBatch } from './run-lease-batch.js';
import type { AttemptOutcome } from './run-attempt.js';

/**
 * One order of effects per resource. A delivery takes its resource's lease right after its
 * claim (before the book decides), keeps it while its handlers run, and gives it back when its claim ends,
 * so the handlers of one charge never overlap anywhere the store is shared, and run in the order the book
 * applied them. In durable mode the receiver takes none (it only claims and queues): the worker takes the
 * resource's run lease around each job, and the book judges the job under it, so the book applies a charge's
 * jobs in the order they run, one at a time.
 */
export interface ResourceOrder {
  /**
   * Asks for `run`'s lease now, without waiting, so the request rides beside the claim (one round trip
   * instead of two on Redis); `enter` uses the answer, `leave` gives it back when the claim was not taken.
   */
  prefetch(run: OrderedRun): void;
  /**
   * Takes `run`'s lease, waiting up to `orderWaitMs` in arrival order; false when another run still holds it (the
   * run's ticket has left the queue).
   */
  enter(run: OrderedRun): MaybePromise<boolean>;
  /**
   * As `enter`, with `ask` taking the lease in a step of its own (the Redis book's joined claim: lease, claim and
   * book read in one script), asked again while it answers undefined (busy); an answer with a fence holds the lease.
   */
  enterWith<T>(
    run: OrderedRun,
    ask: (lease: { resource: string; ttlMs: number; ticketTtlMs: number | undefined }) => Promise<T | undefined>,
    fenceOf: (answer: T) => string | undefined,
  ): Promise<T | undefined>;
  /**
   * Keeps `run`'s lease from now on: its run outlives the turn the lease was taken in (as `Run.hold` does its claim).
   * A remote lease is renewed on a timer; an in-process one is pinned until given back.
   */
  hold(run: OrderedRun): void;
  /** Stops renewing `run`'s lease and gives it back (never rejects). */
  leave(run: OrderedRun): void;
  /** `run`'s lease was given back by the book's commit (in its own step): stops renewing it, gives nothing. */
  forget(run: OrderedRun): void;
  /**
   * Runs a queued job holding its resource's run lease (waiting up to `orderWaitMs` for it); throws
   * `OrderBusyError` when another job of the resource still runs, so the worker puts the job back. The lease is
   * `job`'s `order` while it runs: the book's commit gives it back in its own step where it can (`forget`), a
   * hold or a failure gives it back (`leave`), and what is left is given back when the run ends.
   */
  runInTurn(job: OrderedRun, run: () => MaybePromise<AttemptOutcome>): Promise<AttemptOutcome>;
}

/** What the order keeps on a run: its resource, and the lease while held. */
export interface OrderedRun extends Pick<ClaimedRun, 'event' | 'key' | 'owner'> {
  /** `lease` is made and renewed once the run outlives the turn its lease was taken in (most inline runs never do). */
  order?: { resource: string; fence: string; lease: HeldClaim | undefined } | undefined;
  early?: { resource: string; fence: MaybePromise<Taken> } | undefined;
}

/** A queued job whose resource is busy (another of its jobs runs): the worker puts it back with a delay, not as a failed attempt. */
export class OrderBusyError extends PixhookError {
  constructor(
    key: string,
    readonly delayMs: number,
  ) {
    super('resource_busy', `queued job ${key} waits for another event of its charge or transfer`);
    this.name = 'OrderBusyError';
  }
}

// A run lease's owner: unique per job (`takeMany` needs it), 72 random bits per process, then a counter. Drawn at the
// first use, never at import: Workers (workerd) refuse random values in a module's global scope.
let ownerPrefix: string | undefined;
let ownerSeq = 0;
const runOwner = (): string => {
  ownerPrefix ??= Array.from(globalThis.crypto.getRandomValues(new Uint8Array(9)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `w${ownerPrefix}.${(++ownerSeq).toString(36)}`;
};

// How long a queued job whose resource is busy waits before the worker looks again.
const busyDelayMs = 250;
const shared = new WeakMap<object, OrderLeases>();

/**
 * The leases a store keeps (Redis, Postgres), or in-process ones shared by every processing on the same in-process
 * store, and by every processing in this process sharing `book`: the book judges a charge's event under its lease
 * and applies it only when the handlers succeeded, so processings sharing a book must share the lease.
 */
export function orderLeasesOf(store: DedupeStore, book?: object): OrderLeases {
  const registered = registeredOrderLeases(store) ?? shared.get(store) ?? (book === undefined ? undefined : shared.get(book));
  if (registered !== undefined) return registered;
  const leases = memoryOrderLeases();
  shared.set(store, leases);
  if (book !== undefined) shared.set(book, leases);
  return registerOrderLeases(store, leases) && leases;
}

/** A prefetched answer as a take's: a fence, or nothing taken. */
const fenceOnly = (fence: Taken): Taken => (isFence(fence) ? fence : undefined);

export function resourceOf(event: PixEvent): string {
  return event.kind === 'transaction' ? resourceKey('transaction', event.transaction.id) : resourceKey('transfer', event.transfer.id);
}

/** The lease calls processing makes. */
type LeaseCalls = Pick<OrderLeases, 'take' | 'withdraw' | 'extend' | 'give' | 'takeMany'>;

/** Every remote lease call bounded like the store's: a Redis that stops answering fails the delivery closed. */
function bounded(leases: OrderLeases, ms: number): LeaseCalls {
  const bound = <T>(value: MaybePromise<T>, what: string): MaybePromise<T> => (isPromise(value) ? withTimeout(value, ms, what) : value);
  const takeMany = leases.takeMany?.bind(leases);
  return {
    take: (resource, owner, ttlMs, ask) => bound(leases.take(resource, owner, ttlMs, ask), 'resource order lease'),
    withdraw: (resource, owner) => bound(leases.withdraw(resource, owner), 'resource order ticket'),
    extend: (resource, fence, ttlMs) => bound(leases.extend(resource, fence, ttlMs), 'resource order lease renewal'),
    give: (resource, fence) => bound(leases.give(resource, fence), 'resource order lease release'),
    ...(takeMany && {
      takeMany: (given, takes, ttlMs, ask) => bound(takeMany(given, takes, ttlMs, ask), 'resource order lease'),
    }),
  };
}

export function createResourceOrder(config: {
  store: DedupeStore;
  book?: object | undefined;
  claimTtlMs: number;
  orderWaitMs: number;
  storeTimeoutMs: number;
  logger: Logger;
  /** How long a finished job's run lease waits for the next batch of takes (tests; default `giveLaterMs`). */
  giveLaterMs?: number;
}): ResourceOrder {
  const kept = orderLeasesOf(config.store, config.book);
  const leases = bounded(kept, config.storeTimeoutMs);
  const ttlMs = config.claimTtlMs;
  const log = config.logger;
  // Renews a held lease on the keeper's timer; in-process leases are pinned instead, as the memory store's claims.
  const keeper = createClaimKeeper(
    {
      claim: () => 'in_flight',
      complete: () => false,
      release: () => undefined,
      extend: (resource, fence, ms) => leases.extend(resource, fence, ms),
      ...(kept.pin !== undefined && { pin: (resource: string, fence: string) => kept.pin!(resource, fence) }),
    },
    ttlMs,
  );

  function held(resource: string, fence: string): HeldClaim {
    const lease: HeldClaim = { key: resource, owner: fence, lost: false, onLost: undefined };
    lease.onLost = () =>
      log.error({ resource }, 'pixhook: a resource order lease lapsed while its handlers ran; another event of it may run now');
    keeper.hold(lease);
    return lease;
  }

  // A waiter's ticket outlives its slowest ask (a store call bounded by storeTimeoutMs, then a pause): a ticket
  // not renewed for this long belongs to a waiter that is gone, and the waiters behind it skip it.
  const ticketTtlMs = config.storeTimeoutMs + 1_000;

  /**
   * Takes the lease now (or uses the prefetched answer), or queues a ticket and asks again after pauses of 5 ms
   * doubling to 50 ms, until it is the first live ticket and the lease is free, or `orderWaitMs` has passed (then
   * the ticket leaves the queue).
   */
  function take(resource: string, owner: string, waitMs: number, first?: MaybePromise<Taken>): MaybePromise<Taken> {
    return inTurn(
      resource,
      owner,
      waitMs,
      (ticket) => leases.take(resource, owner, ttlMs, ticket === undefined ? undefined : { ticketTtlMs: ticket }),
      first,
    );
  }

  /**
   * `take`'s wait with any ask: `ask(ticketTtlMs)` answers undefined while the lease is another's (with a ticket TTL,
   * its ticket queued), until it answers something else or `waitMs` has passed (then the ticket is withdrawn).
   */
  function inTurn<T>(
    resource: string,
    owner: string,
    waitMs: number,
    ask: (ticketTtlMs: number | undefined) => MaybePromise<T | undefined>,
    first?: MaybePromise<T | undefined>,
  ): MaybePromise<T | undefined> {
    const ticket = waitMs === 0 ? undefined : ticketTtlMs;
    const asked = first ?? ask(ticket);
    if (!isPromise(asked) && (asked !== undefined || waitMs === 0)) return asked;
    return (async () => {
      const giveUpAt = Date.now() + waitMs;
      let taken = await asked;
      try {
        // A prefetched refusal queued nothing: queue the ticket at once, so the run's place is its arrival's.
        if (taken === undefined && first !== undefined) taken = await ask(ticket);
        for (let pause = 5; taken === undefined; pause = Math.min(pause * 2, 50)) {
          const left = giveUpAt - Date.now();
          if (left <= 0) break;
          await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
          taken = await ask(ticket);
        }
      } catch (error) {
        await withdraw(resource, owner);
        throw error;
      }
      if (taken === undefined) await withdraw(resource, owner);
      return taken;
    })();
  }

  /** Takes `owner`'s ticket out of the queue (never rejects: a ticket left behind lapses after `ticketTtlMs`). */
  async function withdraw(resource: string, owner: string): Promise<void> {
    try {
      await leases.withdraw(resource, owner);
    } catch {
      // Lapses on its own.
    }
  }

  function entered(run: OrderedRun, resource: string, taken: Taken, renew: boolean): boolean {
    if (!isFence(taken)) return false;
    run.order = { resource, fence: taken, lease: renew ? held(resource, taken) : undefined };
    return true;
  }

  function give(resource: string, fence: string): void {
    try {
      const given = leases.give(resource, fence);
      if (isPromise(given)) given.catch((error: unknown) => gaveUp(resource, error));
    } catch (error) {
      gaveUp(resource, error);
    }
  }

  // The durable worker's run leases: the first asks of one turn's jobs in one step, with finished jobs' give-backs.
  const runLeases = createRunLeaseBatch(leases.takeMany, give, {
    ttlMs,
    ticketTtlMs: config.orderWaitMs === 0 ? undefined : ticketTtlMs,
    giveLaterMs: config.giveLaterMs,
  });

  function gaveUp(resource: string, error: unknown): void {
    log.warn({ resource, error: describeError(error) }, 'pixhook: could not give back a resource order lease; it lapses after claimTtlMs');
  }

  const order: ResourceOrder = {
    prefetch(run) {
      const resource = resourceOf(run.event);
      let fence: MaybePromise<Taken>;
      try {
        // Never queues: the claim's answer comes first. Where the store sees the claim, a done key takes nothing.
        fence = leases.take(resource, run.owner, ttlMs, { key: run.key });
      } catch {
        return;
      }
      // A failed early ask is asked again by `enter`, whose failure answers the delivery.
      run.early = { resource, fence: isPromise(fence) ? fence.catch(() => undefined) : fence };
    },
    enter(run) {
      const early = run.early;
      run.early = undefined;
      const resource = early === undefined ? resourceOf(run.event) : early.resource;
      // A prefetched 'done' / 'in_flight' cannot happen here: the claim was taken (only claimed runs enter).
      const first = early === undefined ? undefined : andThen(early.fence, fenceOnly);
      const taking = take(resource, run.owner, config.orderWaitMs, first);
      // Taken in this turn (in-process leases): kept only once the run outlives it, when `hold` pins it, as the
      // claim's own. A lease taken later (a remote store, or a wait) is kept from the take.
      if (!isPromise(taking)) return entered(run, resource, taking, false);
      return taking.then((fence) => entered(run, resource, fence, true));
    },
    async enterWith(run, ask, fenceOf) {
      const resource = resourceOf(run.event);
      const answer = await inTurn(resource, run.owner, config.orderWaitMs, (ticket) => ask({ resource, ttlMs, ticketTtlMs: ticket }));
      const fence = answer === undefined ? undefined : fenceOf(answer);
      if (fence !== undefined) entered(run, resource, fence, true);
      return answer;
    },
    hold(run) {
      const taken = run.order;
      if (taken !== undefined && taken.lease === undefined) taken.lease = held(taken.resource, taken.fence);
    },
    leave(run) {
      const early = run.early;
      if (early !== undefined) {
        run.early = undefined;
        void andThen(early.fence, (fence) => isFence(fence) && give(early.resource, fence));
      }
      const taken = run.order;
      if (taken === undefined) return;
      run.order = undefined;
      if (taken.lease !== undefined) keeper.drop(taken.lease);
      give(taken.resource, taken.fence);
    },
    forget(run) {
      const taken = run.order;
      run.order = undefined;
      if (taken?.lease !== undefined) keeper.drop(taken.lease);
    },
    async runInTurn(job, run) {
      // The workers' own lease (not the receivers'): accepting the next event never waits for a handler.
      const running = resourceOf(job.event) + '#run';
      const owner = runOwner();
      // Every ask (the first, and each while another job of the charge runs) goes with the batch of this turn, which
      // also gives finished jobs' leases back: a job waiting for its charge's lease takes it in the step that gives it.
      const fence = await inTurn(
        running,
        owner,
        config.orderWaitMs,
        (ticket) =>
          runLeases.ask(running, owner) ?? leases.take(running, owner, ttlMs, ticket === undefined ? undefined : { ticketTtlMs: ticket }),
      );
      if (!isFence(fence)) throw new OrderBusyError(job.key, busyDelayMs);
      job.order = { resource: running, fence, lease: held(running, fence) };
      try {
        return await run();
      } finally {
        // Not given back yet (no commit gave it, no hold or failure left it): given back with the worker's next batch
        // of takes, or alone after giveLaterMs.
        const taken = job.order;
        if (taken !== undefined) {
          job.order = undefined;
          if (taken.lease !== undefined) keeper.drop(taken.lease);
          runLeases.giveLater(taken.resource, taken.fence);
        }
      }
    },
  };
  return order;
}
