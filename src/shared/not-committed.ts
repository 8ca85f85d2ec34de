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
