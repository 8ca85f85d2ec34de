import { describe, expect, it } from 'vitest';
import { createProcessing, memoryDedupeStore } from '../../src/index.js';
import { joinedClaimOf } from '../../src/book/joined-claim.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { chargeEvent } from '../book/book-events.js';
import { paymentIdentityScenarios } from '../book/payment-identity-scenarios.js';
import { t0 } from '../book/book-operations.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';

const targets = useRedisTargets();
let books = 0;

describe.each(redisTargetNames)('one identity per payment fact, on redisPaymentBook (%s)', (name) => {
  describe('with a Redis store on the same client: the claim and the book read in one script', () => {
    paymentIdentityScenarios(async () => {
      const prefix = `id:{book${++books}}:`;
      const client = targets(name).client;
      const book = redisPaymentBook({ client, prefix });
      let stores = 0;
      const store = () => redisDedupeStore({ client, prefix: `${prefix}d${++stores}:`, quarantine: false });
      expect(joinedClaimOf(store(), book)).toBeDefined();
      return { book, store };
    });
  });

  describe('with a store of its own: claim, then record', () => {
    paymentIdentityScenarios(async () => ({
      book: redisPaymentBook({ client: targets(name).client, prefix: `id:{book${++books}}:` }),
      store: () => memoryDedupeStore(),
    }));
  });

  it('amounts keep every digit: 123456789012340 cents against 123456789012345 expected is held, on both paths', async () => {
    const client = targets(name).client;
    for (const joined of [true, false]) {
      const prefix = `id:{book${++books}}:`;
      const book = redisPaymentBook({ client, prefix });
      const store = joined ? redisDedupeStore({ client, prefix: `${prefix}d:`, quarantine: false }) : memoryDedupeStore();
      let ran = 0;
      const processing = createProcessing({ book, store }).on('transaction_paid', () => void ran++);
      await book.expect({ id: 'big', amountInCents: 123456789012345 });
      expect(await processing.accept(chargeEvent('transaction_paid', { id: 'big', amountInCents: 123456789012340 }))).toMatchObject({
        reason: 'held',
      });
      expect((await book.held())[0]?.violations.map((v) => v.reason)).toEqual(['amount_mismatch']);
      expect(await processing.accept(chargeEvent('transaction_paid', { id: 'big2', amountInCents: 123456789012345 }))).toMatchObject({});
      expect((await book.get('big'))?.expected?.amountInCents).toBe(123456789012345);
      expect(ran).toBe(1);
    }
  });

  it('a release renews its lease while its handlers run, and one that lost its lease never answers ok', async () => {
    let now = t0;
    const prefix = `id:{book${++books}}:`;
    const one = redisPaymentBook({ client: targets(name).client, prefix, now: () => now, releaseLeaseMs: 60_000 });
    const two = redisPaymentBook({ client: targets(name).connect(), prefix, now: () => now, releaseLeaseMs: 60_000 });
    await one.expect({ id: 'c', amountInCents: 2000 });
    await one.expect({ id: 'd', amountInCents: 2000 });
    const heldC = (await one.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'pc' })) as { heldId: string };
    // renewRelease: the claim stays this caller's past its first lease.
    expect(await one.claimRelease(heldC.heldId)).toMatchObject({ ok: true, leaseMs: 60_000 });
    now += 50_000;
    expect(await one.renewRelease(heldC.heldId)).toBe(true);
    now += 50_000;
    expect(await two.claimRelease(heldC.heldId)).toEqual({ ok: false, reason: 'already_released' });
    expect(await two.renewRelease(heldC.heldId)).toBe(false);
    expect(await one.finishRelease(heldC.heldId, true)).toBe(true);

    // Through the processing: the lease lapses while the handler runs and another release takes it over.
    await one.record(chargeEvent('transaction_paid', { id: 'd' }), { dedupeKey: 'pd' });
    const [heldD] = await one.held();
    let second: Promise<unknown> | undefined;
    const ran: string[] = [];
    const first = createProcessing({ book: one }).on('transaction_paid', async () => {
      ran.push('first');
      if (second === undefined) {
        now += 60_001;
        second = createProcessing({ book: two })
          .on('transaction_paid', () => void ran.push('second'))
          .release(heldD!.heldId);
        await second;
      }
    });
    expect(await first.release(heldD!.heldId)).toEqual({ ok: false, reason: 'already_released' });
    expect(await second).toEqual({ ok: true });
    expect(ran).toEqual(['first', 'second']);
  });
});
