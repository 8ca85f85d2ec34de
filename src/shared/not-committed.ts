import { PixhookError } from './pixhook-error.js';

/**
 * Internal: a store's `complete` failed in a transaction that also held the handlers' effects (the Postgres
 * inbox's shared transaction: the merchant's writes, the book's, the claim and the done mark commit together).
 * Nothing of the run was committed, so the run is not applied: processing gives the claim back and answers a
 * retryable error (inline `store_unavailable`; background retries; durable fails the job). Never set where the
 * handlers' effects were committed outside the failed step (memory, Redis, a Postgres book without the inbox).
 */
export class NotCommittedError extends PixhookError {
  override name = 'PixhookError';
  /** The marker processing reads (a property, not `instanceof`: two copies of the package still agree). */
  readonly effectsRolledBack = true;

  constructor(cause: unknown) {
    super('store_unavailable', 'pixhook: the transaction holding the handled event’s effects did not commit; nothing of it was applied', {
      cause,
    });
  }
}

/** True when `error` says the handlers' effects were rolled back with a failed commit (see `NotCommittedError`). */
export function effectsRolledBack(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { effectsRolledBack?: unknown }).effectsRolledBack === true;
}

// Stores whose `complete` may commit the handlers' effects with the done mark (the Postgres inbox's, while a book's
// transaction is kept open for the key): for them a `complete` that outlives `storeTimeoutMs` has an unknown outcome.
const effectCommits = new WeakMap<object, (key: string) => boolean>();

/** Internal: `store`'s `complete(key)` commits the handlers' effects when `carries(key)` (asked before the call). */
export function registerEffectCommits(store: object, carries: (key: string) => boolean): void {
  effectCommits.set(store, carries);
}

/** For `store`, which of its keys' `complete` commit the handlers' effects with the done mark; undefined: none ever do. */
export function effectCommitsOf(store: object): ((key: string) => boolean) | undefined {
  return effectCommits.get(store);
}

/**
 * Internal: a `complete` that commits the handlers' effects outlived `storeTimeoutMs`. Whether it committed is not
 * known yet (`settling` tells). An answer must not say applied: the effects and the done mark commit together or
 * not at all, so the sender's retry finds the key done (duplicate) or free (runs once). The claim is kept until
 * `settling` ends, and given back only if nothing was committed.
 */
export class CommitOutcomeUnknownError extends PixhookError {
  override name = 'PixhookError';

  constructor(
    cause: unknown,
    readonly settling: Promise<unknown>,
  ) {
    super('store_unavailable', 'pixhook: the commit of a handled event’s effects outlived storeTimeoutMs; its outcome is not known yet', {
      cause,
    });
  }
}

/** The still-settling commit `error` stands for (see `CommitOutcomeUnknownError`), else undefined. */
export function unknownCommit(error: unknown): Promise<unknown> | undefined {
  return error instanceof CommitOutcomeUnknownError ? error.settling : undefined;
}
