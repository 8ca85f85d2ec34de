import { randomUUID } from 'node:crypto';
import {
  asDuplicateHold,
  type JoinedClaim,
  type JoinedClaimResult,
  type Judged,
  type RecordContext,
  resourceKey,
} from '../book/backend.js';
import type { DedupeStore, PixEvent } from '../index.js';
import { isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import { registeredOrderLeases } from '../shared/order-lease.js';
import { claimAndReadScript, leaveClaimScript } from './joined-book-script.js';
import { keepMs, orderLeaseKey, orderLeaseKeys } from './order-lease.js';
import { isClusterClient, type RedisClientLike, type RedisScript } from './redis-client.js';
import { dedupeSiteOf } from './redis-dedupe-store.js';
import { replyArray, replyText } from './redis-replies.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';

/** What a record round reads: the resource's JSON, the expectations flag, the open held event of this dedupe key ('' when absent). */
export type RecordRead = [resource: string, expecting: string, held: string];

/** What the book lends its joined claim. */
export interface BookSite {
  client: RedisClientLike;
  prefix: string;
  keys: {
    resource(rk: string): string;
    held: string;
    heldKeys: string;
    expecting: string;
  };
  run(script: RedisScript, keys: string[], args: (string | number)[], what: string): Promise<unknown>;
  /** The book's own record (the one decision every backend shares), starting from `read`: at once when it writes nothing. */
  record(event: PixEvent, context: RecordContext, onlyRetry: boolean, read: RecordRead): MaybePromise<Judged | undefined>;
}

/**
 * The resource order lease and the claim joined to the book's read, when `store` is a Redis dedupe store on the
 * book's client whose keys share the book's slot (always on one server; on a Cluster, when both prefixes carry the
 * same {hash tag}, which also puts the store's leases in that slot: order-lease.ts). One script takes the lease (the
 * fair ticket queue's turn), claims the key and reads what the decision needs; the decision is the TypeScript step
 * every backend runs (book-state.ts), a hold written back by the book's compare-and-set, an apply by the commit after
 * the handlers (commit-applied.ts, with the done mark and the lease's give-back). No policy lives in Lua, so the
 * backends cannot drift (precision, identity rules) and the money policy has one source.
 * Otherwise (and when the store was given other leases than its own) undefined: the processing claims (the lease
 * beside it), then records.
 */
export function joinedClaimFor(store: DedupeStore, book: BookSite): JoinedClaim | undefined {
  const site = dedupeSiteOf(store);
  if (site === undefined || site.client !== book.client) return undefined;
  if (!sameSlot(book.client, site.prefix, book.prefix)) return undefined;
  // The lease taken in the script must be the one every processing on this store takes: the store's own.
  if (registeredOrderLeases(store) !== site.leases) return undefined;
  const { keys } = book;
  return async (key, owner, ttlMs, event, context, lease): Promise<JoinedClaimResult> => {
    const current = event.kind === 'transaction' ? event.transaction : event.transfer;
    const rk = resourceKey(event.kind, current.id);
    const dedupeKey = site.prefix + key;
    // The lease's counter, tickets and expiries are this key with a suffix: the script names them (claim-and-read.lua).
    const leaseKey = orderLeaseKey(site.prefix, lease.resource);
    // Whether this call may hold the claim or the lease: only an answer that took nothing proves it does not.
    let mayHold = true;
    try {
      const reply = replyArray(
        await book.run(
          claimAndReadScript,
          [dedupeKey, keys.resource(rk), keys.heldKeys, keys.held, keys.expecting, leaseKey],
          [
            owner,
            ms(ttlMs),
            rk + '\n' + context.dedupeKey,
            ms(lease.ttlMs),
            ms(keepMs),
            lease.ticketTtlMs === undefined ? '' : ms(lease.ticketTtlMs),
            takeToken(),
          ],
          'claim',
        ),
      );
      const claim = replyText(reply[0]);
      if (claim !== 'claimed') mayHold = false;
      if (claim === 'in_flight' || claim === 'busy') return { claim };
      const read: RecordRead = [replyText(reply[2]), replyText(reply[3]), replyText(reply[4])];
      if (claim === 'done') {
        if (read[2] === '') return { claim };
        const retry = asDuplicateHold(await book.record(event, context, true, read));
        return retry === undefined ? { claim } : { claim, retry };
      }
      if (claim !== 'claimed') throw new RedisUnavailableError(`unexpected answer from the redis claim and book script: ${String(claim)}`);
      // An apply is judged at once (nothing written before the handlers): no tick spent awaiting a value.
      const recorded = book.record(event, context, false, read);
      return { claim, fence: replyText(reply[1]), recorded: (isPromise(recorded) ? await recorded : recorded) as Judged };
    } catch (error) {
      // The script may still land after a timeout, or the book's write failed after the claim: give back the claim,
      // the lease and a ticket, each only if this owner's (queued behind the script on the same connection).
      if (mayHold) {
        const [, , tickets, expiries] = orderLeaseKeys(site.prefix, lease.resource);
        book.run(leaveClaimScript, [dedupeKey, leaseKey, tickets, expiries], [owner], 'release').catch(() => {});
      }
      throw error;
    }
  };
}

// A fence names one take: '<token>:<owner>', the token unique to the take (a letter and this process's random tag,
// then a count), so no stale holder's fence is ever another take's, and a take makes no counter key on Redis.
const processTag = 'j' + randomUUID().slice(0, 8);
let takes = 0;
function takeToken(): string {
  return processTag + (++takes).toString(36);
}

function ms(value: number): number {
  return Math.max(1, Math.ceil(value));
}

/** True when keys under both prefixes can meet in one script (always on one server; on a Cluster, one {hash tag}). */
export function sameSlot(client: RedisClientLike, a: string, b: string): boolean {
  return !isClusterClient(client) || (hashTag(a) !== undefined && hashTag(a) === hashTag(b));
}

function hashTag(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  const close = open === -1 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : undefined;
}
