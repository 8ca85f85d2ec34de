import { CommitOutcomeUnknownError, completeCarriesEffects } from '../shared/not-committed.js';
import { PixhookTimeoutError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { DedupeStore } from './dedupe-store.js';

/** Bounds every call to a remote store, so a hung store cannot hold a delivery past the sender's 10 s. */
export function guardStore(store: DedupeStore, timeoutMs: number): DedupeStore {
  if (store.local) return store;
  const bound = <T>(what: string, call: () => T | Promise<T>): Promise<T> => {
    try {
      return withTimeout(Promise.resolve(call()), timeoutMs, what);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  /** A done mark committing the handlers' effects (the Postgres inbox with a book): past the bound, the outcome is unknown. */
  const completeWithEffects = (key: string, owner: string, ttl: number): Promise<boolean> => {
    let completing: Promise<boolean>;
    try {
      completing = Promise.resolve(store.complete(key, owner, ttl));
    } catch (error) {
      return Promise.reject(error);
    }
    return withTimeout(completing, timeoutMs, 'dedupe complete').catch((error: unknown) => {
      throw error instanceof PixhookTimeoutError ? new CommitOutcomeUnknownError(error, completing) : error;
    });
  };
  return {
    claim: (key, owner, ttl) => bound('dedupe claim', () => store.claim(key, owner, ttl)),
    complete: (key, owner, ttl) =>
      completeCarriesEffects(store, key)
        ? completeWithEffects(key, owner, ttl)
        : bound('dedupe complete', () => store.complete(key, owner, ttl)),
    release: (key, owner) => bound('dedupe release', () => store.release(key, owner)),
    extend: (key, owner, ttl) => bound('dedupe extend', () => store.extend(key, owner, ttl)),
    ...(store.quarantine && { quarantine: store.quarantine }),
  };
}
