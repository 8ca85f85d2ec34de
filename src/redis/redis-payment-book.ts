import {
  asDuplicateHold,
  checkDedupeKey,
  recordAt,
  recordInput,
  checkExpectation,
  checkNote,
  checkTrail,
  claimedHeld,
  closedReason,
  currentHeld,
  type DismissResult,
  dismissStep,
  disputesWithAge,
  type HeldEvent,
  type PaymentBookBackend,
  ownsRelease,
  type Judged,
  type PaymentBook,
  type RecordContext,
  type RecordResult,
  recordStep,
  type ReleaseClaim,
  releaseRefusal,
  releaseStep,
  renewedHeld,
  resourceKey,
  type ResourceState,
  type StoredHeld,
  toBookResource,
  wantsClosed,
} from '../book/backend.js';
import { randomUUID } from 'node:crypto';
import type { RecordRead } from './joined-book-claim.js';
import type { PixEvent } from '../index.js';
import { checkInteger, checkTimeoutMs } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import { isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import { pendingApply } from './commit-applied.js';
import { sha, writeBook, type Write } from './book-write.js';
import { bookKeys, listDisputedScript, listHeldScript, readForRecordScript, readScript } from './book-scripts.js';
import { joinedClaimFor } from './joined-book-claim.js';
import { checkClusterPrefix, scriptRunner, type RedisClientLike, type RedisScript } from './redis-client.js';
import { persistenceGate, type RedisPersistenceOptions } from './redis-persistence.js';
import { replyArray, replyText } from './redis-replies.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { parseResource, parseStoredHeld } from './stored-book.js';
import { refuseUnknownOptions } from '../shared/known-options.js';
import { redisPaymentBookOptionNames } from './option-names.js';

export interface RedisPaymentBookOptions extends RedisPersistenceOptions {
  /** An ioredis `Redis` or `Cluster`, or a node-redis client; pixhook never closes it. */
  client: RedisClientLike;
  /**
   * Key prefix. Default `pixhook:{book}:`. One `{hash tag}` keeps every key of the book in one Cluster
   * slot (a resource, its held events and the indexes change together); on a Cluster a prefix without one is refused.
   */
  prefix?: string;
  /** Timeline entries kept per resource; the oldest drop first. Default 100. */
  maxTimeline?: number;
  /** A resource untouched this long is forgotten (one with an open dispute is kept). Default 90 days; 0 keeps every resource. */
  retentionMs?: number;
  /** Released and dismissed held events remembered (their answers `already_released`, `dismissed`). Default 100 000. */
  maxClosed?: number;
  /** How long a release may run before its event is held again for another release (a crashed releaser). Default 10 minutes. */
  releaseLeaseMs?: number;
  /** Each call fails (the delivery is answered 503 and retried) when Redis has not answered after this. Default 3 000 ms. */
  timeoutMs?: number;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The payment book shared by every instance on one Redis (or Redis Cluster). */
export type RedisPaymentBook = PaymentBook;

// Compare-and-set retries before giving up: only a resource written by many instances at once needs more than one.
const maxRounds = 50;

/**
 * The payment book on Redis. Every change to one resource is a compare-and-set in one script, so two
 * instances receiving `paid` and `refunded` of one charge at once cannot interleave. Given to a
 * processing whose store is a `redisDedupeStore` on the same client (and, on a Cluster, in the same
 * hash tag), the dedupe claim and the book's decision run in one script: one round trip.
 */
export function redisPaymentBook(options: RedisPaymentBookOptions): RedisPaymentBook {
  refuseUnknownOptions(options, redisPaymentBookOptionNames, 'redisPaymentBook');
  if (typeof options !== 'object' || options === null)
    throw new PixhookConfigError('pixhook: `redisPaymentBook` takes an options object { client }.');
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:{book}:';
  if (typeof prefix !== 'string' || prefix === '') throw new PixhookConfigError('pixhook: `prefix` must be a non-empty string.');
  checkClusterPrefix(options.client, prefix, 'payment book', 'shop:{book}:');
  const maxTimeline = checkInteger('maxTimeline', options.maxTimeline, 1, 100_000, 100);
  const retentionMs = checkInteger('retentionMs', options.retentionMs, 0, 10 * 365 * 24 * 3_600_000, 90 * 24 * 3_600_000);
  const maxClosed = checkInteger('maxClosed', options.maxClosed, 1, 100_000_000, 100_000);
  const leaseMs = checkInteger('releaseLeaseMs', options.releaseLeaseMs, 1_000, 24 * 3_600_000, 10 * 60_000);
  const timeoutMs = checkTimeoutMs('timeoutMs', options.timeoutMs, 3_000);
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw new PixhookConfigError('pixhook: `now` must be a function returning epoch milliseconds.');
  const persistence = persistenceGate(options.client, options);
  const keys = bookKeys(prefix);
  // Release claims this book made: finishRelease ends only its own.
  const owners = new Map<string, string>();

  // Not async: a delivery makes two of these calls, and an async function returning a promise costs ticks of its own.
  function run(script: RedisScript, scriptKeys: string[], args: (string | number)[], what: string): Promise<unknown> {
    const send = () => withTimeout(redis.run(script, scriptKeys, args.map(String)), timeoutMs, `payment book ${what}`);
    try {
      if (!redis.ready()) throw new RedisUnavailableError('redis is not connected');
      const checking = persistence.before();
      return checking ? withTimeout(checking, timeoutMs, 'redis persistence check').then(send) : send();
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  const commit = (write: Write): Promise<boolean> => writeBook({ keys, retentionMs, maxClosed, run }, write);

  /** Runs `attempt` until its compare-and-set lands. */
  async function rounds<T>(attempt: () => Promise<{ done: boolean; value: T }>): Promise<T> {
    for (let round = 0; round < maxRounds; round++) {
      const { done, value } = await attempt();
      if (done) return value;
    }
    throw new RedisUnavailableError('payment book: the resource kept changing under this write; retry later');
  }

  async function readHeld(heldId: string): Promise<{ raw: string; stored: StoredHeld | undefined }> {
    const [raw] = replyArray(await run(readScript, [keys.held], [heldId], 'read')).map(replyText);
    return { raw: raw ?? '', stored: raw ? parseStoredHeld(raw) : undefined };
  }

  async function readResource(rk: string): Promise<string> {
    return replyText(replyArray(await run(readScript, [keys.resource(rk)], [], 'read'))[0]);
  }

  /**
   * `record`, `judge` and `retryOfHeld`: read, decide with the pure step, write if nothing changed meanwhile.
   * `judging`: an apply is not written; it comes back with its commit (the run's, once its handlers succeeded).
   * With `firstRead` (the joined claim read it in its own script) a first round that writes nothing answers at once.
   */
  function recordRounds(
    event: PixEvent,
    context: RecordContext,
    onlyRetry: boolean,
    firstRead?: RecordRead,
    judging = false,
  ): MaybePromise<Judged | undefined> {
    const current = event.kind === 'transaction' ? event.transaction : event.transfer;
    const rk = resourceKey(event.kind, current.id);
    const at = recordAt(context, now);
    const round = (read: RecordRead) => recordRound(event, context, onlyRetry, judging, rk, at, read);
    const again = () =>
      rounds(async () =>
        round(
          replyArray(
            await run(
              readForRecordScript,
              [keys.resource(rk), keys.heldKeys, keys.held, keys.expecting],
              [rk + '\n' + context.dedupeKey],
              'read',
            ),
          ).map(replyText) as RecordRead,
        ),
      );
    if (firstRead === undefined) return again();
    const first = round(firstRead);
    if (!isPromise(first)) return first.done ? first.value : again();
    return first.then((landed) => (landed.done ? landed.value : again()));
  }

  /** One round on `read`: an apply being judged comes back unwritten (at once); anything else is written (compare-and-set). */
  function recordRound(
    event: PixEvent,
    context: RecordContext,
    onlyRetry: boolean,
    judging: boolean,
    rk: string,
    at: number,
    [read, expecting, heldRaw]: RecordRead,
  ): MaybePromise<{ done: boolean; value: Judged | undefined }> {
    if (onlyRetry && heldRaw === '') return { done: true, value: undefined };
    const input = recordInput(event, context, at, {
      resource: read === '' ? undefined : parseResource(read),
      expectationsInUse: expecting === '1',
      openHeld: heldRaw === '' ? undefined : parseStoredHeld(heldRaw).held,
      newHeldId,
      maxTimeline,
    });
    const step = recordStep(input);
    if (judging && step.result.outcome === 'apply')
      return { done: true, value: { ...step.result, commit: pendingApply(commits, rk, input, read, step) } };
    const write: Write = { rk, read, next: step.resource };
    if (step.held !== undefined)
      Object.assign(write, { heldId: step.held.heldId, held: { held: step.held }, op: 'open', score: Date.now() });
    return commit(write).then((done) => ({ done, value: step.result }));
  }

  const commits = {
    client: options.client,
    prefix,
    retentionMs,
    resourceKey: keys.resource,
    disputedKey: keys.disputed,
    run,
    readResource,
    sha,
  };

  const book: RedisPaymentBook & PaymentBookBackend = {
    async get(id) {
      const [charge = '', transfer = ''] = replyArray(
        await run(readScript, [keys.resource(resourceKey('transaction', id)), keys.resource(resourceKey('transfer', id))], [], 'read'),
      ).map(replyText);
      const raw = charge !== '' ? charge : transfer;
      return raw === '' ? undefined : toBookResource(parseResource(raw));
    },

    async expect(charge) {
      const expected = checkExpectation(charge);
      const rk = resourceKey('transaction', charge.id);
      await rounds(async () => {
        const read = await readResource(rk);
        const state: ResourceState =
          read === '' ? { id: charge.id, kind: 'transaction', timeline: [], payments: [], disputes: [] } : parseResource(read);
        return { done: await commit({ rk, read, next: { ...state, expected }, expecting: true }), value: undefined };
      });
    },

    async held(filter) {
      const closed = wantsClosed(filter);
      const at = now();
      const listed: HeldEvent[] = [];
      for (const raw of replyArray(await run(listHeldScript, [closed ? keys.closed : keys.open, keys.held], [], 'read'))) {
        const text = replyText(raw);
        if (text !== '') listed.push(currentHeld(parseStoredHeld(text), at));
      }
      return listed;
    },

    async heldEvent(heldId) {
      const { stored } = await readHeld(heldId);
      return stored === undefined ? undefined : currentHeld(stored, now());
    },

    async dismiss(heldId, note, options) {
      checkNote(note);
      const { by } = checkTrail(options);
      return rounds<DismissResult>(async () => {
        const { raw, stored } = await readHeld(heldId);
        const at = now();
        const reason = closedReason(stored, at);
        if (reason !== undefined || stored === undefined) return { done: true, value: { ok: false, reason: reason ?? 'not_found' } };
        const rk = resourceKey(stored.held.kind, stored.held.resourceId);
        const read = await readResource(rk);
        const step = dismissStep(read === '' ? undefined : parseResource(read), currentHeld(stored, at), note, at, maxTimeline, by);
        const write: Write = { rk, heldId, heldRead: raw, held: { held: step.held }, op: 'close', score: at };
        if (step.resource !== undefined) Object.assign(write, { read, next: step.resource });
        return { done: await commit(write), value: { ok: true } };
      });
    },

    async disputes(filter = {}) {
      const replies = replyArray(await run(listDisputedScript, [keys.disputed], [keys.resource('')], 'read'));
      return disputesWithAge(
        replies.map((raw) => parseResource(replyText(raw)).disputes),
        filter,
        now(),
      );
    },

    async record(event, context) {
      checkDedupeKey(context);
      return (await recordRounds(event, context, false)) as RecordResult;
    },

    async judge(event, context) {
      checkDedupeKey(context);
      return (await recordRounds(event, context, false, undefined, true)) as Judged;
    },

    async retryOfHeld(event, context) {
      if (typeof context?.dedupeKey !== 'string' || context.dedupeKey === '') return undefined;
      const result = await recordRounds(event, context, true);
      return asDuplicateHold(result);
    },

    async claimRelease(heldId) {
      const owner = randomUUID();
      return rounds<ReleaseClaim>(async () => {
        const { raw, stored } = await readHeld(heldId);
        const at = now();
        const reason = closedReason(stored, at);
        if (reason !== undefined || stored === undefined) return { done: true, value: { ok: false, reason: reason ?? 'not_found' } };
        const rk = resourceKey(stored.held.kind, stored.held.resourceId);
        const resource = await readResource(rk);
        const state = resource === '' ? undefined : parseResource(resource);
        const refused = releaseRefusal(state, stored.held);
        if (refused !== undefined) return { done: true, value: { ok: false, reason: refused } };
        const claimed = claimedHeld(stored, owner, at, leaseMs);
        const write: Write = { rk, heldId, heldRead: raw, held: claimed };
        // The refusal was judged on this read: a refund applied meanwhile makes the claim read and judge again.
        if (state !== undefined) Object.assign(write, { read: resource, next: state });
        const done = await commit(write);
        if (done) owners.set(heldId, owner);
        return { done, value: { ok: true, held: structuredClone(claimed.held), leaseMs } };
      });
    },

    async finishRelease(heldId, ok, trail) {
      const checked = checkTrail(trail);
      const owner = owners.get(heldId);
      const finished = await rounds(async () => {
        const { raw, stored } = await readHeld(heldId);
        if (!ownsRelease(stored, owner)) return { done: true, value: false };
        const at = now();
        const rk = resourceKey(stored.held.kind, stored.held.resourceId);
        const read = await readResource(rk);
        const step = releaseStep(read === '' ? undefined : parseResource(read), stored.held, ok === true, at, maxTimeline, checked);
        const write: Write = {
          rk,
          heldId,
          heldRead: raw,
          held: { held: step.held },
          op: step.held.state === 'released' ? 'close' : 'keep',
          score: at,
        };
        if (step.resource !== undefined) Object.assign(write, { read, next: step.resource });
        return { done: await commit(write), value: true };
      });
      owners.delete(heldId);
      return finished;
    },

    async renewRelease(heldId) {
      const owner = owners.get(heldId);
      return rounds(async () => {
        const { raw, stored } = await readHeld(heldId);
        const renewed = renewedHeld(stored, owner, now(), leaseMs);
        if (renewed === undefined || stored === undefined) return { done: true, value: false };
        const rk = resourceKey(stored.held.kind, stored.held.resourceId);
        return { done: await commit({ rk, heldId, heldRead: raw, held: renewed }), value: true };
      });
    },

    joinClaim: (store) =>
      joinedClaimFor(store, {
        client: options.client,
        prefix,
        keys,
        run,
        record: (event, context, onlyRetry, read) => recordRounds(event, context, onlyRetry, read, true),
      }),
  };
  return book;
}

let heldSeq = 0;
// Random once per process, then a counter: unique across instances without a UUID per event (the joined claim asks for one each time).
const heldProcess = randomUUID().slice(0, 8);
/** Sortable by creation in this process (the open list is ordered by creation time, then by id), unique across instances. */
function newHeldId(): string {
  return `held_${Date.now().toString(36).padStart(9, '0')}${(++heldSeq % 1_679_616).toString(36).padStart(4, '0')}${heldProcess}`;
}
