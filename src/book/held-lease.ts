import type { HeldEvent } from './payment-book.js';

// A shared book's release runs in one process while others may crash: the claim is a lease. A held
// event `releasing` past its lease is held again (its releaser died), so a held event is never lost.

/** A held event as a shared backend stores it: the event, and who is releasing it until when. */
export interface StoredHeld {
  held: HeldEvent;
  owner?: string;
  leaseUntil?: number;
}

/** The held event as others should see it at `now`: a lapsed release is `held` again. */
export function currentHeld(stored: StoredHeld, now: number): HeldEvent {
  if (stored.held.state === 'releasing' && (stored.leaseUntil ?? 0) <= now) return { ...stored.held, state: 'held' };
  return stored.held;
}

/** Why `stored` cannot be claimed for a release or dismissed at `now`, or undefined when it can. */
export function closedReason(stored: StoredHeld | undefined, now: number): 'not_found' | 'already_released' | 'dismissed' | undefined {
  if (stored === undefined) return 'not_found';
  const state = currentHeld(stored, now).state;
  if (state === 'dismissed') return 'dismissed';
  return state === 'held' ? undefined : 'already_released';
}

/** The stored form of a release claimed by `owner` until `now + leaseMs`. */
export function claimedHeld(stored: StoredHeld, owner: string, now: number, leaseMs: number): StoredHeld {
  return { held: { ...stored.held, state: 'releasing' }, owner, leaseUntil: now + leaseMs };
}

/** The stored form of `owner`'s release renewed until `now + leaseMs`, or undefined when it is not `owner`'s any more. */
export function renewedHeld(
  stored: StoredHeld | undefined,
  owner: string | undefined,
  now: number,
  leaseMs: number,
): StoredHeld | undefined {
  if (owner === undefined || !ownsRelease(stored, owner)) return undefined;
  return { ...stored, leaseUntil: now + leaseMs };
}

/** True when `owner` still holds the release of `stored` (its lease may have lapsed if nobody took it since). */
export function ownsRelease(stored: StoredHeld | undefined, owner: string | undefined): stored is StoredHeld {
  return stored !== undefined && stored.held.state === 'releasing' && (owner === undefined || stored.owner === owner);
}
