import { describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { redisDedupeStore } from '../../src/redis/index.js';
import { redisOrderLeases } from '../../src/redis/order-lease.js';
import type { DedupeStore } from '../../src/dedupe/dedupe-store.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { createResourceOrder } from '../../src/processing/resource-order.js';
import type { AttemptOutcome } from '../../src/processing/run-attempt.js';
import { silentLogger } from '../../src/shared/logger.js';
import { registerOrderLeases, type OrderLeases } from '../../src/shared/order-lease.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';
import { signBytes } from '../helpers/signing.js';

const targets = useRedisTargets();
const secret = 'whsec_order_lease';
let run = 0;

function request(event: 'transaction_paid' | 'transaction_refunded', id: string) {
  const body = JSON.stringify({
    event,
    timestamp: '2026-11-27T02:00:00Z',
    data: { id, status: event === 'transaction_paid' ? 'paid' : 'refunded', amountInCents: 1000 },
  });
  return { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, secret) }, body };
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe.each(redisTargetNames)('the resource order lease on Redis (%s)', (name) => {
  it('a later event of a busy charge is answered 503 resource_busy with Retry-After past orderWaitMs; its claim is given back, so the retry runs it', async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const paidGate = gate();
    const ran: string[] = [];
    const receivers = [0, 1].map(() =>
      createReceiver({
        secret,
        store: redisDedupeStore({ client: target.connect(), prefix, quarantine: false }),
        orderWaitMs: 50,
      }).on(['transaction_paid', 'transaction_refunded'], async (event) => {
        ran.push(event.name);
        if (event.name === 'transaction_paid') await paidGate.wait;
      }),
    );
    const paid = receivers[0]!.receive(request('transaction_paid', 'ch_busy'));
    await until(() => ran.length === 1);
    const busy = await receivers[1]!.receive(request('transaction_refunded', 'ch_busy'));
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('5');
    expect(JSON.parse(busy.body)).toMatchObject({ error: 'resource_busy' });
    expect(ran).toEqual(['transaction_paid']);
    paidGate.open();
    expect((await paid).status).toBe(200);
    const retried = await receivers[1]!.receive(request('transaction_refunded', 'ch_busy'));
    expect(retried.status).toBe(200);
    expect(JSON.parse(retried.body)).toEqual({ ok: true });
    expect(ran).toEqual(['transaction_paid', 'transaction_refunded']);
  });

  it('the lease is extended while a handler runs past its TTL: another event of the charge still waits', async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const store = () => redisDedupeStore({ client: target.connect(), prefix, quarantine: false });
    const paidGate = gate();
    const ran: string[] = [];
    // claimTtlMs is the lease's TTL too: 1 s, renewed every 250 ms.
    const receivers = [0, 1].map(() =>
      createReceiver({ secret, store: store(), claimTtlMs: 1_000, orderWaitMs: 50 }).on(
        ['transaction_paid', 'transaction_refunded'],
        async (event) => {
          ran.push(event.name);
          if (event.name === 'transaction_paid') await paidGate.wait;
        },
      ),
    );
    const paid = receivers[0]!.receive(request('transaction_paid', 'ch_long'));
    await until(() => ran.length === 1);
    const lease = `${prefix}order:t:ch_long`;
    const first = await target.client.get(lease);
    expect(first).toMatch(/^1:/);
    // Three TTLs later the same fence still holds the lease, which was renewed, never taken again.
    const sleepUntil = Date.now() + 3_000;
    await until(() => Date.now() >= sleepUntil);
    expect(await target.client.get(lease)).toBe(first);
    expect(await target.client.pttl(lease)).toBeGreaterThan(0);
    const busy = await receivers[1]!.receive(request('transaction_refunded', 'ch_long'));
    expect(JSON.parse(busy.body)).toMatchObject({ error: 'resource_busy' });
    paidGate.open();
    expect((await paid).status).toBe(200);
    // Given back at the end of the run: nothing left holding the charge.
    expect(await target.client.exists(lease)).toBe(0);
    expect((await receivers[1]!.receive(request('transaction_refunded', 'ch_long'))).status).toBe(200);
  });

  it('a stale fence can neither give back nor extend the lease taken after it lapsed', async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const leases = redisOrderLeases(target.client, prefix);
    const stale = await leases.take('t:ch_fence', 'owner-a', 30);
    expect(stale).toBe('1:owner-a');
    expect(await leases.take('t:ch_fence', 'owner-b', 30_000)).toBeUndefined();
    await until(async () => (await target.client.exists(`${prefix}order:t:ch_fence`)) === 0);
    const current = await leases.take('t:ch_fence', 'owner-b', 30_000);
    expect(current).toBe('2:owner-b');
    expect(await leases.give('t:ch_fence', stale!)).toBe(false);
    expect(await leases.extend('t:ch_fence', stale!, 30_000)).toBe(false);
    expect(await leases.take('t:ch_fence', 'owner-c', 30_000)).toBeUndefined();
    // Even the same owner with an older counter is another fence.
    expect(await leases.give('t:ch_fence', '1:owner-b')).toBe(false);
    expect(await leases.give('t:ch_fence', current!)).toBe(true);
    expect(await leases.take('t:ch_fence', 'owner-c', 30_000)).toBe('3:owner-c');
  });

  it('takeMany gives back each lease its fence still holds, then takes one lease per take, in one step', async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const leases = redisOrderLeases(target.client, prefix);
    const a = await leases.take('t:give_a', 'owner-a', 30_000);
    const b = await leases.take('t:give_b', 'owner-b', 30_000);
    const given = [
      { resource: 't:give_a', fence: a! },
      { resource: 't:give_b', fence: '9:stale' },
    ];
    // c is free, a was given back in the same step, b is still its owner's, and a second take of c finds it busy. A
    // free lease nobody waits for is taken without the counter: its fence is '0:<owner>'.
    const takes = [
      { resource: 't:give_c', owner: 'owner-c' },
      { resource: 't:give_a', owner: 'owner-d' },
      { resource: 't:give_b', owner: 'owner-e' },
      { resource: 't:give_c', owner: 'owner-x' },
    ];
    expect(await leases.takeMany!(given, takes, 30_000)).toEqual(['0:owner-c', '0:owner-d', undefined, undefined]);
    expect(await target.client.exists(`${prefix}order:t:give_c:n`)).toBe(0);
    // A stale fence gave nothing back: b is still held by its own.
    expect(await target.client.get(`${prefix}order:t:give_b`)).toBe(b);
    expect(await leases.give('t:give_b', b!)).toBe(true);
    // With a ticket TTL a refused take queues its ticket, so it is served before a later asker.
    expect(await leases.takeMany!([], [{ resource: 't:give_c', owner: 'owner-y' }], 30_000, { ticketTtlMs: 5_000 })).toEqual([undefined]);
    expect(await leases.give('t:give_c', '0:owner-c')).toBe(true);
    expect(await leases.take('t:give_c', 'owner-z', 30_000, { ticketTtlMs: 5_000 })).toBeUndefined();
    // A waiter's queue exists: the take goes through the counter and the tickets (y's ticket 1, z's 2, y's fence 3).
    expect(await leases.takeMany!([], [{ resource: 't:give_c', owner: 'owner-y' }], 30_000, { ticketTtlMs: 5_000 })).toEqual(['3:owner-y']);
  });

  it("a worker's jobs that start in one turn take their run leases in one script, with the finished jobs' give-backs; given back alone when no take follows", async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const leases = redisOrderLeases(target.client, prefix);
    const calls: string[] = [];
    const counting: OrderLeases = {
      ...leases,
      take: (...args) => (calls.push('take'), leases.take(...args)),
      give: (...args) => (calls.push('give'), leases.give(...args)),
      takeMany: (given, takes, ttlMs, ask) => (
        calls.push(`takeMany ${given.length} given, ${takes.length} taken`),
        leases.takeMany!(given, takes, ttlMs, ask)
      ),
    };
    const store = registerOrderLeases({} as DedupeStore, counting);
    // Finished jobs' leases wait for the next batch (no timer gives them alone within the test), then the default.
    const config = { store, claimTtlMs: 30_000, orderWaitMs: 2_000, storeTimeoutMs: 5_000, logger: silentLogger };
    const order = createResourceOrder({ ...config, giveLaterMs: 60_000 });
    const job = (id: string, n = 1) => ({
      event: { kind: 'transaction', transaction: { id } } as PixEvent,
      key: `k:${id}:${n}`,
      owner: `o:${id}`,
    });
    const leaseOf = (id: string) => target.client.exists(`${prefix}order:t:${id}#run`);
    const ok = (): AttemptOutcome => ({ ok: true });
    // Three jobs handed over in one turn, two of them of one charge: one script takes a and b; the second job of a
    // waits for the first to end (one job of a charge at a time): its next ask gives that lease back and takes it.
    const running: string[] = [];
    const first = gate();
    const jobs = [
      order.runInTurn(job('run_a', 1), async () => {
        running.push('a1');
        await first.wait;
        running.push('a1 done');
        return ok();
      }),
      order.runInTurn(job('run_b'), async () => (running.push('b'), ok())),
      order.runInTurn(job('run_a', 2), async () => (running.push('a2'), ok())),
    ];
    await until(() => running.includes('b') && running.includes('a1'));
    expect(calls[0]).toBe('takeMany 0 given, 3 taken');
    expect(running).not.toContain('a2');
    first.open();
    await Promise.all(jobs);
    // No take alone: a2's asks went with batches, the one that took its lease also gave a1's back.
    expect(calls.filter((call) => !call.startsWith('takeMany'))).toEqual([]);
    expect(running.indexOf('a2')).toBeGreaterThan(running.indexOf('a1 done'));
    // The next job's take gives the finished jobs' leases back in the same script.
    calls.length = 0;
    await order.runInTurn(job('run_c'), async () => {
      expect(await leaseOf('run_b')).toBe(0);
      expect(await leaseOf('run_a')).toBe(0);
      return ok();
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^takeMany [1-9]\d* given, 1 taken$/);
    // With the default wait, a lease no take follows is given back alone.
    calls.length = 0;
    await createResourceOrder(config).runInTurn(job('run_d'), async () => ok());
    expect(await leaseOf('run_d')).toBe(1);
    await until(async () => (await leaseOf('run_d')) === 0);
    expect(calls).toEqual(['takeMany 0 given, 1 taken', 'give']);
  });
});
