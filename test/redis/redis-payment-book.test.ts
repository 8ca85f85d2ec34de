import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import { joinedClaimOf } from '../../src/book/joined-claim.js';
import type { PaymentBook, RecordResult } from '../../src/book/payment-book.js';
import type { PixEvent } from '../../src/index.js';
import { resourceOf } from '../../src/processing/resource-order.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { registeredOrderLeases } from '../../src/shared/order-lease.js';
import { chargeEvent } from '../book/book-events.js';
import { bookOperation, runOperations, t0 } from '../book/book-operations.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';

const targets = useRedisTargets();
let books = 0;
const freshPrefix = () => `test:{book${++books}}:`;

describe.each(redisTargetNames)('redisPaymentBook on %s', (name) => {
  it('answers every method with a promise and keeps a resource, its timeline and its holds', async () => {
    const book = redisPaymentBook({ client: targets(name).client, prefix: freshPrefix(), now: () => t0 });
    expect(await book.get('c')).toBeUndefined();
    expect(await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'p1' })).toEqual({
      outcome: 'apply',
      violations: [],
    });
    const stale = await book.record(chargeEvent('transaction_created', { id: 'c' }), { dedupeKey: 'c1' });
    expect(stale).toMatchObject({ outcome: 'held', violations: [{ reason: 'stale_status', action: 'hold' }] });
    const heldId = (stale as { heldId: string }).heldId;
    // The sender's retry of the held event: the same hold, never a second one.
    expect(await book.retryOfHeld(chargeEvent('transaction_created', { id: 'c' }), { dedupeKey: 'c1' })).toMatchObject({
      outcome: 'duplicate_hold',
      heldId,
    });
    expect(await book.retryOfHeld(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p1' })).toBeUndefined();
    expect((await book.held()).map((held) => held.heldId)).toEqual([heldId]);
    expect((await book.get('c'))?.timeline.map((entry) => entry.outcome)).toEqual(['apply', 'held', 'duplicate_hold']);
    expect(await book.dismiss(heldId, 'a late created')).toEqual({ ok: true });
    expect(await book.dismiss(heldId, 'again')).toEqual({ ok: false, reason: 'dismissed' });
    expect(await book.claimRelease(heldId)).toEqual({ ok: false, reason: 'dismissed' });
    expect(await book.claimRelease('held_none')).toEqual({ ok: false, reason: 'not_found' });
    expect(await book.held()).toEqual([]);
    expect((await book.get('c'))?.status).toBe('paid');
  });

  it('runs a release exactly once across instances, and a crashed releaser’s event is held again after its lease', async () => {
    let now = t0;
    const prefix = freshPrefix();
    const one = redisPaymentBook({ client: targets(name).client, prefix, now: () => now, releaseLeaseMs: 60_000 });
    const two = redisPaymentBook({ client: targets(name).connect(), prefix, now: () => now, releaseLeaseMs: 60_000 });
    await one.record(chargeEvent('transaction_refunded', { id: 'c' }), { dedupeKey: 'r' });
    const held = await one.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' });
    const heldId = (held as { heldId: string }).heldId;
    const claims = await Promise.all([one.claimRelease(heldId), two.claimRelease(heldId), one.claimRelease(heldId)]);
    expect(claims.filter((claim) => claim.ok)).toHaveLength(1);
    expect(claims.filter((claim) => !claim.ok).map((claim) => !claim.ok && claim.reason)).toEqual(['already_released', 'already_released']);
    // The releaser crashes: after the lease, another instance may release it.
    expect((await two.held()).map((entry) => entry.state)).toEqual(['releasing']);
    now += 60_001;
    expect((await two.held()).map((entry) => entry.state)).toEqual(['held']);
    const retaken = await two.claimRelease(heldId);
    expect(retaken.ok).toBe(true);
    // The first releaser's late finish does not count: its lease was taken over.
    const winner = claims.find((claim) => claim.ok) === claims[1] ? two : one;
    if (winner === one) expect(await one.finishRelease(heldId, true)).toBe(false);
    expect(await two.finishRelease(heldId, true)).toBe(true);
    expect(await one.claimRelease(heldId)).toEqual({ ok: false, reason: 'already_released' });
    expect((await one.get('c'))?.timeline.map((entry) => entry.outcome)).toEqual(['apply', 'held', 'released']);
  });

  it('shares expectations and disputes between instances', async () => {
    const prefix = freshPrefix();
    const one = redisPaymentBook({ client: targets(name).client, prefix, now: () => t0 });
    const two = redisPaymentBook({ client: targets(name).connect(), prefix, now: () => t0 });
    await one.expect({ id: 'known', amountInCents: 1000 });
    expect(await two.record(chargeEvent('transaction_paid', { id: 'other' }), { dedupeKey: 'x' })).toMatchObject({
      outcome: 'apply',
      violations: [{ reason: 'unknown_charge', action: 'flag' }],
    });
    const infraction = { id: 'med_1', status: 'open', openedAt: '2026-05-01T11:00:00Z' };
    await two.record(chargeEvent('transaction_infraction', { id: 'known', infraction }), { dedupeKey: 'i' });
    expect(await one.disputes({ open: true })).toEqual([
      { resourceId: 'known', id: 'med_1', status: 'open', openedAt: '2026-05-01T11:00:00.000Z', open: true, ageMs: 3_600_000 },
    ]);
    expect(await one.disputes({ open: false })).toEqual([]);
  });

  it('keeps every key of the book under its prefix, and refuses on a Cluster a prefix without a hash tag', async () => {
    const prefix = freshPrefix();
    const book = redisPaymentBook({ client: targets(name).client, prefix });
    await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' });
    expect((await targets(name).keys('test:*')).filter((key) => key.startsWith(prefix)).length).toBeGreaterThan(0);
    if (name === 'cluster')
      expect(() => redisPaymentBook({ client: targets(name).client, prefix: 'shop:book:' })).toThrow(PixhookConfigError);
    else expect(() => redisPaymentBook({ client: targets(name).client, prefix: 'shop:book:' })).not.toThrow();
  });

  it('decides every random sequence of events, expectations, releases and dismissals exactly as the memory book (differential)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(bookOperation, { minLength: 1, maxLength: 14 }), async (ops) => {
        const memory = await runOperations(memoryPaymentBook({ now: () => t0 }), ops);
        const shared = await runOperations(redisPaymentBook({ client: targets(name).client, prefix: freshPrefix(), now: () => t0 }), ops);
        expect(shared).toEqual(memory);
      }),
      { numRuns: 40 },
    );
  });

  it('claims and records in ONE script with a Redis store on the same client, deciding every random sequence as the memory book (differential)', async () => {
    const { client } = targets(name);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(bookOperation, { minLength: 1, maxLength: 14 }), async (ops) => {
        const prefix = freshPrefix();
        const book = redisPaymentBook({ client, prefix, now: () => t0 });
        const store = redisDedupeStore({ client, prefix: `${prefix}dedupe:`, quarantine: false });
        const joined = joinedClaimOf(store, book);
        expect(joined).toBeDefined();
        const leases = registeredOrderLeases(store)!;
        const leaseOf = (event: PixEvent) => ({ resource: resourceOf(event), ttlMs: 60_000, ticketTtlMs: undefined });
        // Every record goes through the joined script: a fresh key takes the lease and claims it; a key already done
        // asks for a held retry.
        const viaScript: PaymentBook = {
          ...book,
          async record(event, context) {
            const key = `k${++n}`;
            const result = await joined!(key, 'owner', 60_000, event, context, leaseOf(event));
            if (result.claim !== 'claimed') throw new Error(`expected a claim, got ${result.claim}`);
            const lease = { resource: resourceOf(event), fence: result.fence };
            // An apply is written when the handlers succeed: its commit, with the done mark and the lease, in one more script.
            const { commit, ...recorded } = result.recorded;
            if (commit !== undefined) {
              expect(await commit({ store, key, owner: 'owner', ttlMs: 60_000, lease })).toEqual({ marked: true, leaseGiven: true });
            } else expect(await leases.give(lease.resource, lease.fence)).toBe(true);
            return recorded as RecordResult;
          },
          async retryOfHeld(event, context) {
            const key = `k${++n}`;
            await store.claim(key, 'o', 60_000);
            await store.complete(key, 'o', 60_000);
            const result = await joined!(key, 'owner', 60_000, event, context, leaseOf(event));
            if (result.claim !== 'done') throw new Error(`expected done, got ${result.claim}`);
            return result.retry;
          },
        };
        const memory = await runOperations(memoryPaymentBook({ now: () => t0 }), ops);
        expect(await runOperations(viaScript, ops)).toEqual(memory);
      }),
      { numRuns: 60 },
    );
  });

  it('joins the claim only with a store it can share a script with', async () => {
    const { client } = targets(name);
    const book = redisPaymentBook({ client, prefix: 'j:{book}:' });
    expect(
      joinedClaimOf(redisDedupeStore({ client: targets(name).connect(), prefix: 'j:{book}:d:', quarantine: false }), book),
    ).toBeUndefined();
    const untagged = joinedClaimOf(redisDedupeStore({ client, quarantine: false }), book);
    expect(untagged === undefined).toBe(name === 'cluster');
    expect(joinedClaimOf(redisDedupeStore({ client, prefix: 'j:{book}:d:', quarantine: false }), book)).toBeDefined();
  });
});
