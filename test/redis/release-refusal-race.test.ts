import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { commitScript } from '../../src/redis/book-scripts.js';
import { redisPaymentBook } from '../../src/redis/index.js';
import { chargeEvent } from '../book/book-events.js';
import { useRedisTarget } from '../helpers/redis-targets.js';

// A release claim judges refunded_since_held on the resource it read. A refund applied by another instance between
// that read and the claim's write must make the claim judge again, never claim on the stale read.
describe('redisPaymentBook claimRelease against a refund applied meanwhile', () => {
  const target = useRedisTarget('single');

  it('a refund written between the claim’s read and its write makes the claim refused (refunded_since_held)', async () => {
    const client = target().client as Redis;
    const prefix = 'race:{book}:';
    const other = redisPaymentBook({ client, prefix });
    let before: (() => Promise<void>) | undefined;
    // The claiming book's client: its next write of the book runs `before` first (another instance's refund).
    const racing = new Proxy(client, {
      get(target, property, receiver) {
        if (property !== 'evalsha') return Reflect.get(target, property, receiver) as unknown;
        return async (sha: string, keyCount: number, ...rest: (string | number)[]) => {
          const run = before;
          if (sha === commitScript.sha && run !== undefined) {
            before = undefined;
            await run();
          }
          return target.evalsha(sha, keyCount, ...rest);
        };
      },
    });
    const book = redisPaymentBook({ client: racing, prefix });
    await book.expect({ id: 'c', amountInCents: 2000 });
    const held = (await book.record(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' }), { dedupeKey: 'p' })) as {
      heldId: string;
    };
    let refunded: unknown;
    before = async () => {
      refunded = await other.record(chargeEvent('transaction_refunded', { id: 'c', refund: { id: 'R1', amountInCents: 1000 } }), {
        dedupeKey: 'r',
      });
    };
    expect(await book.claimRelease(held.heldId)).toEqual({ ok: false, reason: 'refunded_since_held' });
    // The fault happened: the refund landed inside the claim, after its read.
    expect(refunded).toMatchObject({ outcome: 'apply' });
    expect(before).toBeUndefined();
    expect(await book.heldEvent(held.heldId)).toMatchObject({ state: 'held' });
  });
});
