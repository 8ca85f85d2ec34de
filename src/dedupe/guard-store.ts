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
  return {
    claim: (key, owner, ttl) => bound('dedupe claim', () => store.claim(key, owner, ttl)),
    complete: (key, owner, ttl) => bound('dedupe complete', () => store.complete(key, owner, ttl)),
    release: (key, owner) => bound('dedupe release', () => store.release(key, owner)),
    extend: (key, owner, ttl) => bound('dedupe extend', () => store.extend(key, owner, ttl)),
    ...(store.quarantine && { quarantine: store.quarantine }),
  };
}
