import type { DedupeStore } from './dedupe/dedupe-store.js';
import { withTimeout } from './with-timeout.js';

/** Bounds every call to a remote store, so a hung store cannot hold a delivery past the sender's 10 s. */
export function guardStore(store: DedupeStore, timeoutMs: number): DedupeStore {
  if (store.local) return store;
  return {
    claim: (key, ttl) => withTimeout(Promise.resolve(store.claim(key, ttl)), timeoutMs, 'dedupe claim'),
    complete: (key, ttl) => withTimeout(Promise.resolve(store.complete(key, ttl)), timeoutMs, 'dedupe complete'),
    release: (key) => withTimeout(Promise.resolve(store.release(key)), timeoutMs, 'dedupe release'),
    ...(store.extend && { extend: (key: string, ttl: number) => withTimeout(store.extend!(key, ttl), timeoutMs, 'dedupe extend') }),
  };
}

/** Renews a claim every third of its TTL while work runs; returns the function that stops renewing. */
export function keepClaim(store: DedupeStore, key: string, ttlMs: number): () => void {
  if (!store.extend) return () => {};
  const timer = setInterval(() => {
    store.extend!(key, ttlMs).catch(() => {
      // A missed renewal only shortens the claim; the next one or the completion settles it.
    });
  }, Math.max(1, Math.floor(ttlMs / 3)));
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
