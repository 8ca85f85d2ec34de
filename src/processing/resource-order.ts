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
import type { Acknowledgement, ClaimedRun } from './acknowledgement.js';
import { memoryOrderLeases } from './memory-order-leases.js';
import type { AckMode } from './processing-options.js';
import type { AttemptOutcome } from './run-attempt.js';

/**
 * One order of effects per resource. A delivery takes its resource's lease right after its
 * claim (before the book decides), keeps it while its handlers run, and gives it back when its claim ends,
 * so the handlers of one charge never overlap anywhere the store is shared, and run in the order the book
 * applied them. In durable mode the receiver holds it only to queue the job in order; the worker takes a
 * lease of its own to run it, and puts the job back while an earlier job of the resource is unsettled.
 */
export interface ResourceOrder {
  /**
   * Asks for `run`'s lease now, without waiting, so the request rides beside the claim (one round trip
   * instead of two on Redis); `enter` uses the answer, `leave` gives it back when the claim was not taken.
   */
  prefetch(run: OrderedRun): void;
  /**
   * Takes `run`'s lease, waiting up to `orderWaitMs` in arrival order; false when another run still holds it (the
   * run's ticket has left the queue). With `checkClaim` (the claim comes after the lease), a store that sees the
   * run's dedupe key answers `'done'` or `'in_flight'` before the run queues.
   */
  enter(run: OrderedRun, checkClaim?: boolean): MaybePromise<boolean | 'done' | 'in_flight'>;
  /** Renews `run`'s lease from now on: its run outlives the turn the lease was taken in (as `Run.hold` does its claim). */
  hold(run: OrderedRun): void;
  /** Stops renewing `run`'s lease and gives it back (never rejects); `settle` also ends a queued job's turn. */
  leave(run: OrderedRun, settle?: boolean): void;
  /** `run`'s lease was given back by the book's commit (in its own step): stops renewing it, gives nothing. */
  forget(run: OrderedRun): void;
  /** The mode, queuing each job of a resource in the order of its lease (durable); the others as they are. */
  ordered(acknowledgement: Acknowledgement): Acknowledgement;
  /** Runs a queued job when its turn came, holding the run lease; throws `OrderBusyError` when not yet. */
  runInTurn(
    event: PixEvent,
    key: string,
    job: { final: boolean; isQueued?: ((key: string) => Promise<boolean>) | undefined },
    run: () => MaybePromise<AttemptOutcome>,
  ): Promise<AttemptOutcome>;
}

/** What the order keeps on a run: its resource, and the lease while held. */
export interface OrderedRun extends Pick<ClaimedRun, 'event' | 'key' | 'owner'> {
  /** `lease` is made and renewed once the run outlives the turn its lease was taken in (most inline runs never do). */
  order?: { resource: string; fence: string; lease: HeldClaim | undefined; queued?: boolean } | undefined;
  early?: { resource: string; fence: MaybePromise<Taken> } | undefined;
}

/** A queued job whose resource is busy: the worker puts it back with a delay, not as a failed attempt. */
export class OrderBusyError extends PixhookError {
  constructor(
    key: string,
    readonly delayMs: number,
  ) {
    super('resource_busy', `queued job ${key} waits for an earlier event of its charge or transfer`);
    this.name = 'OrderBusyError';
  }
}

// A queued job older than this no longer holds up the jobs behind it (a job removed by hand, a receiver that died between queuing and answering).
const staleQueuedMs = 60 * 60_000;
// How long a queued job that is not its resource's turn yet waits before the worker looks again.
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
  const leases = memoryOrderLeases(staleQueuedMs);
  shared.set(store, leases);
  if (book !== undefined) shared.set(book, leases);
  return registerOrderLeases(store, leases) && leases;
}

/** A prefetched answer as a take's: a fence, or nothing taken. */
const fenceOnly = (fence: Taken): Taken => (isFence(fence) ? fence : undefined);

export function resourceOf(event: PixEvent): string {
  return event.kind === 'transaction' ? resourceKey('transaction', event.transaction.id) : resourceKey('transfer', event.transfer.id);
}

/** Every remote lease call bounded like the store's: a Redis that stops answering fails the delivery closed. */
function bounded(leases: OrderLeases, ms: number): OrderLeases {
  const bound = <T>(value: MaybePromise<T>, what: string): MaybePromise<T> => (isPromise(value) ? withTimeout(value, ms, what) : value);
  return {
    take: (resource, owner, ttlMs, ask) => bound(leases.take(resource, owner, ttlMs, ask), 'resource order lease'),
    withdraw: (resource, owner) => bound(leases.withdraw(resource, owner), 'resource order ticket'),
    extend: (resource, fence, ttlMs) => bound(leases.extend(resource, fence, ttlMs), 'resource order lease renewal'),
    give: (resource, fence) => bound(leases.give(resource, fence), 'resource order lease release'),
    queued: (resource, fence, key) => withTimeout(leases.queued(resource, fence, key), ms, 'resource order queue'),
    aheadOf: (resource, key) => withTimeout(leases.aheadOf(resource, key), ms, 'resource order turn'),
    settled: (resource, key) => withTimeout(leases.settled(resource, key), ms, 'resource order turn'),
  };
}

export function createResourceOrder(config: {
  store: DedupeStore;
  book?: object | undefined;
  mode: AckMode;
  claimTtlMs: number;
  orderWaitMs: number;
  storeTimeoutMs: number;
  logger: Logger;
}): ResourceOrder {
  const leases = bounded(orderLeasesOf(config.store, config.book), config.storeTimeoutMs);
  const ttlMs = config.claimTtlMs;
  const log = config.logger;
  const keeper = createClaimKeeper(
    {
      claim: () => 'in_flight',
      complete: () => false,
      release: () => undefined,
      extend: (resource, fence, ms) => leases.extend(resource, fence, ms),
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

  // Durable mode awaits the queue's order entry before its acknowledgement holds the run: renew from the take.
  const holdAtOnce = config.mode === 'durable';

  // A waiter's ticket outlives its slowest ask (a store call bounded by storeTimeoutMs, then a pause): a ticket
  // not renewed for this long belongs to a waiter that is gone, and the waiters behind it skip it.
  const ticketTtlMs = config.storeTimeoutMs + 1_000;

  /**
   * Takes the lease now (or uses the prefetched answer), or queues a ticket and asks again after pauses of 5 ms
   * doubling to 50 ms, until it is the first live ticket and the lease is free, or `orderWaitMs` has passed (then
   * the ticket leaves the queue). `key`: the first ask reads the run's claim where the store can (see `OrderLeases`).
   */
  function take(resource: string, owner: string, waitMs: number, first?: MaybePromise<Taken>, key?: string): MaybePromise<Taken> {
    const ask = waitMs === 0 ? undefined : { ticketTtlMs };
    const asked = first ?? leases.take(resource, owner, ttlMs, key === undefined ? ask : { ...ask, key });
    if (!isPromise(asked) && (asked !== undefined || waitMs === 0)) return asked;
    return (async () => {
      const giveUpAt = Date.now() + waitMs;
      let taken = await asked;
      try {
        // A prefetched refusal queued nothing: queue the ticket at once, so the run's place is its arrival's.
        if (taken === undefined && first !== undefined) taken = await leases.take(resource, owner, ttlMs, ask);
        for (let pause = 5; taken === undefined; pause = Math.min(pause * 2, 50)) {
          const left = giveUpAt - Date.now();
          if (left <= 0) break;
          await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
          taken = await leases.take(resource, owner, ttlMs, ask);
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

  function entered(run: OrderedRun, resource: string, taken: Taken, renew: boolean): boolean | 'done' | 'in_flight' {
    if (!isFence(taken)) return taken ?? false;
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

  /**
   * The job still to run before `key`. One the queue no longer holds (it ran, or was removed: a receiver's
   * retry can queue a key again after its job ran, and the queue refuses the second job) is settled here.
   */
  async function aheadOf(resource: string, key: string, isQueued: ((key: string) => Promise<boolean>) | undefined) {
    for (let looked = 0; ; looked++) {
      const ahead = await leases.aheadOf(resource, key);
      if (ahead === undefined || isQueued === undefined || looked === 20 || (await isQueued(ahead))) return ahead;
      await leases.settled(resource, ahead);
    }
  }

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
    enter(run, checkClaim = false) {
      const early = run.early;
      run.early = undefined;
      const resource = early === undefined ? resourceOf(run.event) : early.resource;
      // A prefetched 'done' / 'in_flight' cannot happen here: the claim was taken (only claimed runs enter).
      const first = early === undefined ? undefined : andThen(early.fence, fenceOnly);
      const taking = take(resource, run.owner, config.orderWaitMs, first, checkClaim ? run.key : undefined);
      // Taken in this turn (in-process leases): no renewal until the run outlives it, when `hold` starts one,
      // as the claim's own. A lease taken later (a remote store) is renewed from the take.
      if (!isPromise(taking)) return entered(run, resource, taking, holdAtOnce);
      return taking.then((fence) => entered(run, resource, fence, true));
    },
    hold(run) {
      const taken = run.order;
      if (taken !== undefined && taken.lease === undefined) taken.lease = held(taken.resource, taken.fence);
    },
    leave(run, settle = false) {
      const early = run.early;
      if (early !== undefined) {
        run.early = undefined;
        void andThen(early.fence, (fence) => isFence(fence) && give(early.resource, fence));
      }
      const taken = run.order;
      if (taken === undefined) return;
      run.order = undefined;
      if (taken.lease !== undefined) keeper.drop(taken.lease);
      if (settle && taken.queued === true)
        void leases.settled(taken.resource, run.key).catch((error: unknown) => gaveUp(taken.resource, error));
      give(taken.resource, taken.fence);
    },
    forget(run) {
      const taken = run.order;
      run.order = undefined;
      if (taken?.lease !== undefined) keeper.drop(taken.lease);
    },
    ordered(acknowledgement) {
      if (config.mode !== 'durable') return acknowledgement;
      return {
        async acknowledge(run) {
          const taken = (run as OrderedRun).order;
          if (taken !== undefined) {
            try {
              await leases.queued(taken.resource, taken.fence, run.key);
              taken.queued = true;
            } catch (error) {
              // A timed-out entry may still land: take it out again (on Redis, behind it on the same connection; on
              // Postgres, once more later), or the resource's later jobs would wait for a job never queued.
              const cleanUp = () => leases.settled(taken.resource, run.key).catch(() => undefined);
              void cleanUp();
              setTimeout(cleanUp, config.storeTimeoutMs).unref?.();
              await run.release();
              run.hint = 'resource order: ' + describeError(error);
              return 'store_unavailable';
            }
          }
          return acknowledgement.acknowledge(run);
        },
        get size() {
          return acknowledgement.size;
        },
        idle: () => acknowledgement.idle(),
      };
    },
    async runInTurn(event, key, job, run) {
      const resource = resourceOf(event);
      // The workers' own lease (not the receivers'): accepting the next event never waits for a handler.
      const running = resource + '#run';
      const fence = await take(running, `w${Math.random().toString(36).slice(2, 10)}`, config.orderWaitMs);
      if (!isFence(fence)) throw new OrderBusyError(key, busyDelayMs);
      const lease = held(running, fence);
      let settle = false;
      try {
        if ((await aheadOf(resource, key, job.isQueued)) !== undefined) throw new OrderBusyError(key, busyDelayMs);
        const outcome = await run();
        // A job that runs again keeps its turn: the jobs behind it wait for it.
        settle = outcome.ok || job.final;
        return outcome;
      } finally {
        if (settle) await leases.settled(resource, key).catch((error: unknown) => gaveUp(resource, error));
        keeper.drop(lease);
        give(running, fence);
      }
    },
  };
  return order;
}
