import { describe, expect, it } from 'vitest';
import { createClaimKeeper, type HeldClaim } from '../../src/dedupe/claim-keeper.js';
import type { DedupeStore } from '../../src/dedupe/dedupe-store.js';
import { memoryDedupeStore } from '../../src/index.js';

function claimOf(key: string, owner: string): HeldClaim & { losses: number } {
  const claim = {
    key,
    owner,
    lost: false,
    losses: 0,
    onLost: () => {
      claim.losses++;
    },
  };
  return claim;
}

describe('claim keeper with an in-process store (pin)', () => {
  it('pins a held claim instead of renewing it: no timer, and it outlives its TTL', async () => {
    const store = memoryDedupeStore();
    const keeper = createClaimKeeper(store, 20);
    expect(store.claim('k', 'a', 20)).toBe('claimed');
    const claim = claimOf('k', 'a');
    keeper.hold(claim);
    expect(keeper.size).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(claim.lost).toBe(false);
    expect(store.claim('k', 'b', 20)).toBe('in_flight');
    keeper.drop(claim);
    expect(store.complete('k', 'a', 1000)).toBe(true);
  });

  it('a claim that cannot be pinned (lapsed, another owner, a store that throws) is lost at once', () => {
    const store = memoryDedupeStore();
    const keeper = createClaimKeeper(store, 1000);
    expect(store.claim('k', 'a', 1000)).toBe('claimed');
    const stale = claimOf('k', 'b');
    keeper.hold(stale);
    expect([stale.lost, stale.losses]).toEqual([true, 1]);

    const throwing: DedupeStore = {
      local: true,
      claim: () => 'claimed',
      complete: () => true,
      release: () => undefined,
      extend: () => true,
      pin: () => {
        throw new Error('down');
      },
    };
    const broken = claimOf('x', 'a');
    broken.onLost = () => {
      throw new Error('the run aborts badly');
    };
    createClaimKeeper(throwing, 1000).hold(broken);
    expect(broken.lost).toBe(true);
  });
});
