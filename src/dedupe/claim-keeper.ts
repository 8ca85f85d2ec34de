import type { DedupeStore } from './dedupe-store.js';

/** A claim this process holds and keeps renewing until the run settles it. */
export interface HeldClaim {
  readonly key: string;
  readonly owner: string;
  /** Set once the claim can no longer be trusted: another owner has it, or renewals failed for half its TTL. */
  lost: boolean;
  /** Called once, when the claim is lost (the run aborts and counts as failed). */
  onLost: (() => void) | undefined;
}

export interface ClaimKeeper {
  /**
   * Renews `claim` from now until it is dropped (an in-process store's claim is pinned instead: it does
   * not lapse while its run lives, however late a renewal would fire). A run settled in the turn its claim was taken needs
   * no renewal: inline mode holds a claim only once its run goes asynchronous (still that turn).
   */
  hold(claim: HeldClaim): void;
  /** Stops renewing (the run completed or released it). */
  drop(claim: HeldClaim): void;
  readonly size: number;
}

interface Renewal {
  claim: HeldClaim;
  /** When the last renewal that succeeded was sent (the claim lives `ttlMs` from about then). */
  renewedAt: number;
  pending: boolean;
}

/**
 * Keeps every claim of one processing alive with one timer (not one per event): each tick renews all
 * held claims. A claim that cannot be renewed for half its TTL is declared lost *before* it can
 * lapse, so its run fails instead of racing a second run elsewhere.
 */
export function createClaimKeeper(store: DedupeStore, ttlMs: number): ClaimKeeper {
  const held = new Map<HeldClaim, Renewal>();
  const everyMs = Math.max(20, Math.floor(ttlMs / 4));
  let timer: ReturnType<typeof setInterval> | undefined;

  function start(claim: HeldClaim, renewedAt: number): void {
    held.set(claim, { claim, renewedAt, pending: false });
    if (timer === undefined) {
      // Left running while idle for a tick: starting and stopping a timer per event costs more than a no-op tick.
      timer = setInterval(tick, everyMs);
      (timer as { unref?: () => void }).unref?.();
    }
  }

  function lose(renewal: Renewal): void {
    if (held.delete(renewal.claim)) abandon(renewal.claim);
  }

  function abandon(claim: HeldClaim): void {
    claim.lost = true;
    try {
      claim.onLost?.();
    } catch {
      // The run's own abort must not stop the other renewals.
    }
  }

  /** An in-process store's claim is pinned for as long as its run lives: no renewal can come too late. */
  function pin(claim: HeldClaim): void {
    let pinned: boolean;
    try {
      pinned = store.pin!(claim.key, claim.owner);
    } catch {
      pinned = false;
    }
    // Already lapsed or taken (it cannot be, in the turn it was claimed): the run must not go on.
    if (!pinned) abandon(claim);
  }

  function renew(renewal: Renewal, now: number): void {
    if (renewal.pending) {
      if (now - renewal.renewedAt >= ttlMs / 2) lose(renewal);
      return;
    }
    const sentAt = now;
    const settle = (renewed: boolean) => {
      renewal.pending = false;
      if (renewed) renewal.renewedAt = sentAt;
      else lose(renewal);
    };
    const fail = () => {
      renewal.pending = false;
      if (Date.now() - renewal.renewedAt >= ttlMs / 2) lose(renewal);
    };
    try {
      const result = store.extend(renewal.claim.key, renewal.claim.owner, ttlMs);
      if (typeof result === 'boolean') return settle(result);
      renewal.pending = true;
      result.then(settle, fail);
    } catch {
      fail();
    }
  }

  function tick(): void {
    if (held.size === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    const now = Date.now();
    for (const renewal of [...held.values()]) renew(renewal, now);
  }

  return {
    hold(claim) {
      if (store.pin !== undefined) return pin(claim);
      if (!held.has(claim)) start(claim, Date.now());
    },
    drop(claim) {
      // Most claims (synchronous runs) were never held: no Map lookup while none is.
      if (held.size !== 0) held.delete(claim);
    },
    get size() {
      return held.size;
    },
  };
}
