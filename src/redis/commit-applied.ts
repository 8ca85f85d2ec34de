import {
  applyStep,
  type Committed,
  type DoneMark,
  type PendingApply,
  type RecordInput,
  type RecordResult,
  type ResourceState,
} from '../book/backend.js';
import { luaSources } from './commands/lua-sources.js';
import { sameSlot } from './joined-book-claim.js';
import { registeredOrderLeases } from '../shared/order-lease.js';
import { orderLeaseKey } from './order-lease.js';
import { defineScript, type RedisClientLike, type RedisScript } from './redis-client.js';
import { dedupeSiteOf } from './redis-dedupe-store.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { parseResource } from './stored-book.js';

/** The book's write, the done mark and the lease's give-back in one script (src/redis/commands/commit-applied.lua). */
const commitAppliedScript = defineScript(luaSources['commit-applied']);

/** What the book lends its commits. */
interface CommitSite {
  client: RedisClientLike;
  prefix: string;
  retentionMs: number;
  resourceKey(rk: string): string;
  disputedKey: string;
  run(script: RedisScript, keys: string[], args: (string | number)[], what: string): Promise<unknown>;
  readResource(rk: string): Promise<string>;
  sha(text: string): string;
}

// Compare-and-set rounds: under the order lease the first lands; only a write outside it (`expect`) needs another.
const maxRounds = 50;

/**
 * The commit of an event judged `apply` from `read` (the resource's JSON as the judgement read it): the step
 * (book-state.ts `applyStep`) on the resource as it is now, written in one script with the done mark and the
 * lease's give-back when the run's store is a Redis store on this client whose keys share the book's slot;
 * otherwise the book's write alone (the run marks and gives back after it).
 */
export function pendingApply(
  site: CommitSite,
  rk: string,
  input: RecordInput,
  read: string,
  judged: { resource: ResourceState; result: RecordResult },
): PendingApply {
  const { violations } = judged.result;
  return async (mark): Promise<Committed> => {
    const joined = joinedMark(site, mark);
    let current: string | undefined = read;
    for (let round = 0; round < maxRounds; round++) {
      current ??= await site.readResource(rk);
      // Unchanged since judged (under the order lease, the first round): the judged step is the commit.
      const next =
        current === read
          ? judged.resource
          : applyStep({ ...input, resource: current === '' ? undefined : parseResource(current) }, violations);
      const keys =
        joined === undefined ? [site.resourceKey(rk), site.disputedKey] : [site.resourceKey(rk), site.disputedKey, ...joined.keys];
      const disputes = disputesFlag(next);
      const reply = Number(
        await site.run(
          commitAppliedScript,
          keys,
          [
            site.sha(current),
            next === undefined ? '' : JSON.stringify(next),
            site.retentionMs,
            disputes,
            // Only a write with disputes adds the resource to the disputed set.
            disputes === '0' ? '' : rk,
            mark.owner,
            Math.max(1, Math.ceil(mark.ttlMs)),
            mark.lease?.fence ?? '',
          ],
          'commit',
        ),
      );
      if (reply !== 0) return joined === undefined ? {} : { marked: reply === 1, leaseGiven: joined.keys.length === 2 };
      current = undefined;
    }
    throw new RedisUnavailableError('payment book: the resource kept changing under this commit; retry later');
  };
}

function disputesFlag(next: ResourceState | undefined): string {
  if (next === undefined) return '0';
  return next.disputes.some((dispute) => dispute.open) ? '2' : next.disputes.length > 0 ? '1' : '0';
}

/** The done mark's key, and the lease's, when the run's store lives on this client in the book's slot. */
function joinedMark(site: CommitSite, mark: DoneMark): { keys: string[] } | undefined {
  const store = dedupeSiteOf(mark.store);
  if (store === undefined || store.client !== site.client || !sameSlot(site.client, store.prefix, site.prefix)) return undefined;
  const keys = [store.prefix + mark.key];
  // Only the store's own leases (a processing may have been given others): their key is known here.
  if (mark.lease !== undefined && registeredOrderLeases(mark.store) === store.leases)
    keys.push(orderLeaseKey(store.prefix, mark.lease.resource));
  return { keys };
}
