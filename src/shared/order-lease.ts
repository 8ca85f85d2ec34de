import type { MaybePromise } from './maybe-promise.js';

/**
 * One lease per resource (a charge or a transfer), kept where the dedupe store keeps its claims, so every
 * processing sharing the store runs one resource's handlers one at a time and in the order its book applied
 * them. A lease is named by its fence: the store's counter for the resource (or, in the Redis joined claim, a token
 * made for that one take) and the taker's owner token, so a run whose lease lapsed can never extend or give back the
 * lease someone took after it.
 */
export interface OrderLeases {
  /**
   * The lease of `resource` for `owner` for `ttlMs`: its fence, or `undefined` while another fence holds it or
   * a live ticket queued before `owner`'s waits for it. Waiters are served in arrival order: with `ask.ticketTtlMs`
   * a refused `owner` queues a ticket (or keeps its place and renews it) for that long; each call renews it, and a
   * ticket not renewed in time (its waiter died) is skipped. Without it nothing is queued: the lease is taken only
   * when free and nobody waits. With `ask.key` (a dedupe key) a store that sees the key in the same step answers
   * `'done'` or `'in_flight'` (another owner's claim) without taking or queuing anything.
   */
  take(
    resource: string,
    owner: string,
    ttlMs: number,
    ask?: { ticketTtlMs?: number | undefined; key?: string | undefined },
  ): MaybePromise<Taken>;
  /**
   * Optional (Redis, where every lease shares one slot): gives the `given` leases back (each only while its fence
   * holds it), then takes one lease for each of `takes` as `take` does, in one step; one answer per take, in order.
   * A durable worker takes the run leases of the jobs that start in one turn of its event loop this way, with the
   * leases its finished jobs still hold. Each take's `owner` must be unique (never used for another take): a free
   * lease nobody waits for may be taken without the resource's counter, its fence told apart by the owner alone.
   */
  takeMany?(
    given: readonly { resource: string; fence: string }[],
    takes: readonly { resource: string; owner: string }[],
    ttlMs: number,
    ask?: { ticketTtlMs?: number | undefined },
  ): MaybePromise<Taken[]>;
  /** `owner` stops waiting (it gave up, or no longer needs the lease): its ticket leaves the queue. */
  withdraw(resource: string, owner: string): MaybePromise<void>;
  /** Renews the lease to `ttlMs` from now; false when `fence` no longer holds it. */
  extend(resource: string, fence: string, ttlMs: number): MaybePromise<boolean>;
  /** Gives the lease back; false (and nothing touched) when `fence` no longer holds it. */
  give(resource: string, fence: string): MaybePromise<boolean>;
  /**
   * In-process leases: keeps `fence`'s lease from lapsing by the clock until it is given back (false when `fence`
   * no longer holds it). Processing calls it instead of renewing on a timer (as `DedupeStore.pin` for a claim): the
   * run lives in this process, so a late renewal (an event loop stalled past the TTL) must not let another event of
   * the resource be judged while that run still lives. Leases shared between processes have no `pin`: their TTL is
   * what frees the lease of a process that died.
   */
  pin?(resource: string, fence: string): boolean;
}

/** A fence (it always holds a `:`), `undefined` (busy: wait), or the claim's answer seen by the lease's store. */
export type Taken = string | undefined | 'done' | 'in_flight';

/** True for a fence (a taken lease). */
export function isFence(taken: Taken): taken is string {
  return taken !== undefined && taken !== 'done' && taken !== 'in_flight';
}

const registered = new WeakMap<object, OrderLeases>();

/** Internal: a store declares where its leases live (the Redis store on its Redis, Postgres in its database). */
export function registerOrderLeases<S extends object>(store: S, leases: OrderLeases): S {
  registered.set(store, leases);
  return store;
}

/** The leases a store declared, or undefined (then processings sharing it share in-process leases). */
export function registeredOrderLeases(store: object): OrderLeases | undefined {
  return registered.get(store);
}

/** The fence's counter: a later fence of one resource has a larger one. */
export function fenceOrder(fence: string): number {
  const colon = fence.indexOf(':');
  return Number(colon === -1 ? fence : fence.slice(0, colon));
}
