import type { QuarantineStore } from './quarantine-store.js';

/** What a claim found: the key is now ours, someone is processing it, or it was processed. */
export type ClaimResult = 'claimed' | 'in_flight' | 'done';

/**
 * Where dedupe keys live. Every call names its `owner`, a token unique to one run, so a stale run
 * can never release, renew or overwrite another run's claim. In-process stores may answer
 * synchronously (no promise): it saves a tick per call on the hot path.
 */
export interface DedupeStore {
  /** Atomic: of two concurrent claims of one key, exactly one gets `claimed`. The claim lapses after `ttlMs` unless renewed. */
  claim(key: string, owner: string, ttlMs: number): ClaimResult | Promise<ClaimResult>;
  /**
   * Marks the key processed for `ttlMs` when `owner` holds the claim, or nobody does (it lapsed);
   * false when another owner holds it now.
   */
  complete(key: string, owner: string, ttlMs: number): boolean | Promise<boolean>;
  /** Deletes `owner`'s claim so the sender's retry processes the event again; never a done mark, never another owner's claim. */
  release(key: string, owner: string): void | Promise<void>;
  /** Renews `owner`'s claim to `ttlMs` from now; false when `owner` no longer holds it. */
  extend(key: string, owner: string, ttlMs: number): boolean | Promise<boolean>;
  /**
   * In-process stores: keeps `owner`'s claim from lapsing by the clock until it is completed or released
   * (false when `owner` no longer holds it). The claim keeper calls it instead of renewing on a timer: the
   * run lives in this process, so a late renewal (an event loop stalled past the TTL) must not let a retry
   * run the event a second time while the first run still lives. Stores shared between processes have no
   * `pin`: their TTL is what frees the claim of a process that died.
   */
  pin?(key: string, owner: string): boolean;
  /** True for in-process stores, whose calls need no timeout. */
  readonly local?: boolean;
  /** Where this store keeps verified deliveries that could not be read as events (Redis stores have one). */
  readonly quarantine?: QuarantineStore;
}
