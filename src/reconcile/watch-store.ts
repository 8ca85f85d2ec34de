/** One charge the reconciler follows until it reaches a final status or grows too old. */
export interface WatchEntry {
  chargeId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Reads of this charge so far. */
  checks: number;
  /** Epoch milliseconds of the next read (before the reconciler's `minAgeMs`, the creation time). */
  nextCheckAt: number;
}

export interface WatchStats {
  /** Charges still followed. */
  watched: number;
  /** Creation time of the oldest one, epoch milliseconds. */
  oldestCreatedAt: number | undefined;
}

/**
 * The watch list and its schedule. Several reconcilers may share one store: `lease` hands a due
 * charge to one of them at a time, and only the lease holder may reschedule or finish it.
 */
export interface WatchStore {
  /** Starts following a charge (a no-op when it is followed already). `createdAt` defaults to now. */
  watch(chargeId: string, createdAt?: number): Promise<void>;
  /**
   * Makes a followed charge due at `at` at the latest (`pixhook reconcile --charge`: read at once, even when the
   * charge was followed and scheduled later). False when it is not followed, or leased now (its holder reads it).
   * Optional for a store of your own; pixhook's stores have it.
   */
  due?(chargeId: string, at: number): Promise<boolean>;
  /** Up to `limit` charges due at `now`, leased to `owner` for `leaseMs` (nobody else gets them meanwhile). */
  lease(now: number, limit: number, leaseMs: number, owner: string): Promise<WatchEntry[]>;
  /** The next read of a leased charge; false when `owner` lost the lease. */
  reschedule(chargeId: string, owner: string, nextCheckAt: number, checks: number): Promise<boolean>;
  /** Stops following a leased charge; false when `owner` lost the lease. */
  finish(chargeId: string, owner: string): Promise<boolean>;
  /**
   * Takes up to `want` reads out of `limit` per `windowMs` (a sliding window shared by every
   * reconciler on this store); returns how many were granted.
   */
  reserveReads(want: number, limit: number, windowMs: number, now: number): Promise<number>;
  stats(): Promise<WatchStats>;
}
