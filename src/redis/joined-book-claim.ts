import {
  asDuplicateHold,
  type JoinedClaim,
  type JoinedClaimResult,
  type Judged,
  type RecordContext,
  resourceKey,
} from '../book/backend.js';
import type { DedupeStore, PixEvent } from '../index.js';
import { releaseScript } from './dedupe-scripts.js';
import { claimAndReadScript } from './joined-book-script.js';
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
  /** The book's own record (the one decision every backend shares), starting from `read`. */
  record(event: PixEvent, context: RecordContext, onlyRetry: boolean, read: RecordRead): Promise<Judged | undefined>;
}

/**
 * The claim joined to the book's read, when `store` is a Redis dedupe store on the book's client whose keys
 * share the book's slot (always on one server; on a Cluster, when both prefixes carry the same {hash tag}).
 * One script claims the key and reads what the decision needs; the decision is the TypeScript step every
 * backend runs (book-state.ts), written back by the book's compare-and-set. No policy lives in Lua, so the
 * backends cannot drift (precision, identity rules) and the money policy has one source.
 * Otherwise undefined: the processing claims, then records.
 */
export function joinedClaimFor(store: DedupeStore, book: BookSite): JoinedClaim | undefined {
  const site = dedupeSiteOf(store);
  if (site === undefined || site.client !== book.client) return undefined;
  if (!sameSlot(book.client, site.prefix, book.prefix)) return undefined;
  const { keys } = book;
  return async (key, owner, ttlMs, event, context): Promise<JoinedClaimResult> => {
    const current = event.kind === 'transaction' ? event.transaction : event.transfer;
    const rk = resourceKey(event.kind, current.id);
    const dedupeKey = site.prefix + key;
    // Whether this call may hold the claim: only a `done` or `in_flight` answer proves it does not.
    let mayHoldClaim = true;
    try {
      const reply = replyArray(
        await book.run(
          claimAndReadScript,
          [dedupeKey, keys.resource(rk), keys.heldKeys, keys.held, keys.expecting],
          [owner, Math.max(1, Math.ceil(ttlMs)), rk + '\n' + context.dedupeKey],
          'claim',
        ),
      ).map(replyText);
      const claim = reply[0];
      const read: RecordRead = [reply[1] ?? '', reply[2] ?? '', reply[3] ?? ''];
      if (claim === 'in_flight' || claim === 'done') mayHoldClaim = false;
      if (claim === 'in_flight') return { claim };
      if (claim === 'done') {
        if (read[2] === '') return { claim };
        const retry = asDuplicateHold(await book.record(event, context, true, read));
        return retry === undefined ? { claim } : { claim, retry };
      }
      if (claim !== 'claimed') throw new RedisUnavailableError(`unexpected answer from the redis claim and book script: ${String(claim)}`);
      return { claim, recorded: (await book.record(event, context, false, read)) as Judged };
    } catch (error) {
      // The script may still land after a timeout, or the book's write failed after the claim: give the claim back.
      if (mayHoldClaim) book.run(releaseScript, [dedupeKey], [owner], 'release').catch(() => {});
      throw error;
    }
  };
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
