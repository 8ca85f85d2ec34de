import { CommitOutcomeUnknownError, effectCommitsOf } from '../shared/not-committed.js';
import { PixhookTimeoutError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { DedupeStore } from './dedupe-store.js';

/** Bounds every call to a remote store, so a hung store cannot hold a delivery past the sender's 10 s. */
export function guardStore(store: DedupeStore, timeoutMs: number): DedupeStore {
  if (store.local) return store;
  /** `call` bounded; `unknown` says what a timeout means when the call may still take effect. */
  const bound = <T>(
    what: string,
    call: () => T | Promise<T>,
    unknown?: (timeout: PixhookTimeoutError, call: Promise<T>) => Error,
  ): Promise<T> => {
    let called: Promise<T>;
    try {
      called = Promise.resolve(call());
    } catch (error) {
      return Promise.reject(error);
    }
    const bounded = withTimeout(called, timeoutMs, what);
    if (unknown === undefined) return bounded;
    return bounded.catch((error: unknown) => {
      throw error instanceof PixhookTimeoutError ? unknown(error, called) : error;
    });
  };
  // A done mark committing the handlers' effects (the Postgres inbox with a book): past the bound, its outcome is unknown.
  const carriesEffects = effectCommitsOf(store);
  const outcomeUnknown = (timeout: PixhookTimeoutError, completing: Promise<boolean>) => new CommitOutcomeUnknownError(timeout, completing);
  return {
    claim: (key, owner, ttl) => bound('dedupe claim', () => store.claim(key, owner, ttl)),
    complete: (key, owner, ttl) =>
      bound('dedupe complete', () => store.complete(key, owner, ttl), carriesEffects?.(key) === true ? outcomeUnknown : undefined),
    release: (key, owner) => bound('dedupe release', () => store.release(key, owner)),
    extend: (key, owner, ttl) => bound('dedupe extend', () => store.extend(key, owner, ttl)),
    ...(store.quarantine && { quarantine: store.quarantine }),
  };
}
