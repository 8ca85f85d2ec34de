/** What a claim found: the key is now ours, someone is processing it, or it was processed. */
export type ClaimResult = 'claimed' | 'in_flight' | 'done';

/**
 * Where dedupe keys live. `claim` must be atomic: of two concurrent claims of one key, exactly one
 * gets `claimed`. A claim expires after `ttlMs` so a crashed process cannot hold a key forever.
 * In-process stores may answer synchronously (no promise): it saves a tick per call on the hot path.
 */
export interface DedupeStore {
  claim(key: string, ttlMs: number): ClaimResult | Promise<ClaimResult>;
  /** Marks a claimed key processed; duplicates within `ttlMs` answer `done`. */
  complete(key: string, ttlMs: number): void | Promise<void>;
  /** Gives a claimed key back so the sender's retry processes it again. */
  release(key: string): void | Promise<void>;
  /** Renews a claim that is still in flight, so long work keeps it; stores whose claims die with the process may omit it. */
  extend?(key: string, ttlMs: number): Promise<void>;
  /** True for in-process stores, whose calls need no timeout. */
  readonly local?: boolean;
}
