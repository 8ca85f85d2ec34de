// Issue 36 §5 "Fair order" on Redis (one server and a 3-master Cluster, tagged prefixes): waiters for one charge
// are served in arrival order across instances; a delivery already done never takes or queues for the lease.
import { describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from '../../src/index.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { orderLeaseKey, redisOrderLeases } from '../../src/redis/order-lease.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';
import {
  arrivalOrder,
  expectServedInArrivalOrder,
  fairSecret,
  fairSequencer,
  gatedHandlers,
  replayStreams,
  signed,
  threeStreamsAndPaid,
} from './fair-order-harness.js';

const targets = useRedisTargets();
let run = 0;

describe.each(redisTargetNames)('fair order on Redis (%s)', (name) => {
  /** `watched: false` leaves each store its own leases, so a store and a book sharing a tag join lease, claim and read in one script. */
  function instances(adversary: 'fresh' | 'latest', withBook: boolean, orderWaitMs = 60_000, watched = true) {
    const target = targets(name);
    const tag = `fair${++run}`;
    const sequencer = fairSequencer(adversary);
    const receivers: Receiver[] = [0, 1].map(() => {
      const client = target.connect();
      const store = redisDedupeStore({ client, prefix: `{${tag}}:`, quarantine: false });
      if (watched) sequencer.watch(store);
      const book = withBook ? redisPaymentBook({ client, prefix: `{${tag}}:book:` }) : undefined;
      return createReceiver({
        secret: fairSecret,
        store,
        ...(book && { book }),
        orderWaitMs,
        deadlineMs: 60_000,
        handlerTimeoutMs: 60_000,
        // A waiter's ticket lives storeTimeoutMs + 1 s from its last ask; the adversary holds asks back, on a loaded machine.
        storeTimeoutMs: 15_000,
      });
    });
    return { receivers, sequencer, target, prefix: `{${tag}}:` };
  }

  it.each([true, false])(
    'three streams of signed transaction_updated and the genuine transaction_paid on two instances (book: %s): the paid waits only for the events ahead of it at arrival',
    async (withBook) => {
      const { receivers, sequencer } = instances('fresh', withBook);
      expectServedInArrivalOrder(await threeStreamsAndPaid(receivers, sequencer, 'ch_fair'));
    },
    60_000,
  );

  it.each([true, false])(
    'eight streams resending already-handled deliveries (book: %s): none takes or queues for the lease; the first real attempt is handled',
    async (withBook) => {
      const { receivers, sequencer } = instances('fresh', withBook, 2_000);
      const met = await replayStreams(receivers, sequencer, 'ch_replayed');
      const replayTakes = sequencer.takes.filter((take) => take.label.startsWith('r'));
      expect(replayTakes.length).toBe(40);
      expect(replayTakes.filter((take) => typeof take.taken === 'string' && take.taken.includes(':'))).toEqual([]);
      expect(replayTakes.filter((take) => take.queued)).toEqual([]);
      expect(new Set(met.replayBodies)).toEqual(new Set([JSON.stringify({ ok: true, reason: 'duplicate' })]));
      expect(met.paidAnswer.status).toBe(200);
      // The real attempt was never refused the lease: nothing was ahead of it.
      expect(sequencer.takes.filter((take) => take.label === 'paid' && take.taken === undefined)).toEqual([]);
    },
    60_000,
  );

  it('a copy of a delivery still running on the other instance is answered in_flight at once: it never queues for the lease (book joined to the claim)', async () => {
    const { receivers, sequencer, target, prefix } = instances('fresh', true, 60_000, false);
    const handlers = gatedHandlers(sequencer.notify);
    for (const receiver of receivers) handlers.register(receiver, () => true);
    const request = signed('transaction_updated', 'ch_copy', 'pending', 1_000);
    const first = receivers[0]!.receive(request);
    await sequencer.until(() => handlers.started.length === 1);
    const copy = await receivers[1]!.receive(request);
    expect(copy.status).toBe(503);
    expect(JSON.parse(copy.body)).toMatchObject({ error: 'in_flight' });
    expect(await target.client.zcard(`${prefix}order:t:ch_copy:w`)).toBe(0);
    handlers.open();
    expect((await first).status).toBe(200);
    expect(handlers.started).toHaveLength(1);
  }, 60_000);

  it('two instances: waiters are served in the order they arrived, even when the last one asks first after the give-back', async () => {
    const { receivers, sequencer } = instances('latest', true);
    await arrivalOrder(receivers, sequencer, 'ch_arrival');
  }, 60_000);

  it("a dead waiter's ticket stops holding up the waiters behind it once its TTL passed", async () => {
    const { receivers, target, prefix } = instances('fresh', false);
    const leases = redisOrderLeases(target.client, prefix);
    const holder = (await leases.take('t:ch_dead', 'holder', 60_000))!;
    // A waiter queues, then its process dies: it never asks again.
    expect(await leases.take('t:ch_dead', 'dead', 60_000, { ticketTtlMs: 300 })).toBeUndefined();
    const ran: string[] = [];
    receivers[1]!.on('transaction_updated', () => void ran.push('live'));
    const live = receivers[1]!.receive(signed('transaction_updated', 'ch_dead', 'pending', 1_000));
    const tickets = `${orderLeaseKey(prefix, 't:ch_dead')}:w`;
    while ((await target.client.zcard(tickets)) < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await target.client.zrange(tickets, 0, -1))[0]).toBe('dead');
    expect(await leases.give('t:ch_dead', holder)).toBe(true);
    expect((await live).status).toBe(200);
    expect(ran).toEqual(['live']);
    expect(await target.client.zcard(tickets)).toBe(0);
  }, 60_000);

  it('a waiter past orderWaitMs answers 503 resource_busy and leaves the queue', async () => {
    const { receivers, target, prefix } = instances('fresh', false, 100);
    const leases = redisOrderLeases(target.client, prefix);
    const holder = (await leases.take('t:ch_quit', 'holder', 60_000))!;
    const busy = await receivers[0]!.receive(signed('transaction_updated', 'ch_quit', 'pending', 1_000));
    expect(busy.status).toBe(503);
    expect(JSON.parse(busy.body)).toMatchObject({ error: 'resource_busy' });
    expect(await target.client.zcard(`${prefix}order:t:ch_quit:w`)).toBe(0);
    expect(await leases.give('t:ch_quit', holder)).toBe(true);
    // Nothing left queued: the next delivery takes the lease at once.
    expect((await receivers[1]!.receive(signed('transaction_updated', 'ch_quit', 'pending', 1_000))).status).toBe(200);
  }, 60_000);
});
