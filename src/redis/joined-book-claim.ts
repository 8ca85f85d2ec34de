import type { JoinedClaim } from '../book/joined-claim.js';
import type { DedupeStore } from '../index.js';
export function joinedClaimFor(_store: DedupeStore, _book: unknown): JoinedClaim | undefined {
  return undefined;
}
