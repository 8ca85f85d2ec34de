import type { MaybePromise } from './maybe-promise.js';

/**
 * One lease per resource (a charge or a transfer), kept where the dedupe store keeps its claims, so every
 * processing sharing the store runs one resource's handlers one at a time and in the order its book applied
 * them. A lease is named by its fence: the store's counter for the resource and the taker's owner token, so a
 * run whose lease lapsed can never extend or give back the lease someone took after it.
 */
export interface OrderLeases {
  /** The lease of `resource` for `owner` for `ttlMs`: its fence, or `undefined` while another fence holds it. */
  take(resource: string, owner: string, ttlMs: number): MaybePromise<string | undefined>;
  /** Renews the lease to `ttlMs` from now; false when `fence` no longer holds it. */
  extend(resource: string, fence: string, ttlMs: number): MaybePromise<boolean>;
  /** Gives the lease back; false (and nothing touched) when `fence` no longer holds it. */
  give(resource: string, fence: string): MaybePromise<boolean>;
  /**
   * Durable mode: `key` is queued for `resource` under `fence` (taken at acceptance), so workers run the
   * resource's jobs in the order their fences were given.
   */
  queued(resource: string, fence: string, key: string): Promise<void>;
  /** The first job of `resource` queued before `key` and not settled yet, or `undefined`: then it is `key`'s turn. */
  aheadOf(resource: string, key: string): Promise<string | undefined>;
  /** `key` ran (or was given up for good): the next job of `resource` may run. */
  settled(resource: string, key: string): Promise<void>;
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
