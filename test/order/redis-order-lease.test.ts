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

  it('takeGiving gives back each lease its fence still holds, then takes, in one step', async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const leases = redisOrderLeases(target.client, prefix);
    const a = await leases.take('t:give_a', 'owner-a', 30_000);
    const b = await leases.take('t:give_b', 'owner-b', 30_000);
    const given = [
      { resource: 't:give_a', fence: a! },
      { resource: 't:give_b', fence: '9:stale' },
    ];
    expect(await leases.takeGiving!(given, 't:give_c', 'owner-c', 30_000)).toBe('1:owner-c');
    expect(await leases.take('t:give_a', 'owner-d', 30_000)).toBe('2:owner-d');
    // A stale fence gave nothing back: b is still held by its own.
    expect(await leases.take('t:give_b', 'owner-e', 30_000)).toBeUndefined();
    expect(await leases.give('t:give_b', b!)).toBe(true);
    // Another take of a held lease gives its leases back all the same, and answers busy.
    const d = await leases.take('t:give_d', 'owner-f', 30_000);
    expect(await leases.takeGiving!([{ resource: 't:give_d', fence: d! }], 't:give_c', 'owner-g', 30_000)).toBeUndefined();
    expect(await leases.take('t:give_d', 'owner-h', 30_000)).toBe('2:owner-h');
  });

  it("a worker gives a finished job's run lease back with its next take (one script per job), and alone when no take follows", async () => {
    const target = targets(name);
    const prefix = `{lease${++run}}:`;
    const leases = redisOrderLeases(target.client, prefix);
    const calls: string[] = [];
    const counting: OrderLeases = {
      ...leases,
      take: (...args) => (calls.push('take'), leases.take(...args)),
      give: (...args) => (calls.push('give'), leases.give(...args)),
      takeGiving: (...args) => (calls.push('takeGiving'), leases.takeGiving!(...args)),
    };
    const store = registerOrderLeases({} as DedupeStore, counting);
    const order = createResourceOrder({ store, claimTtlMs: 30_000, orderWaitMs: 100, storeTimeoutMs: 5_000, logger: silentLogger });
    const job = (id: string) => ({ event: { kind: 'transaction', transaction: { id } } as PixEvent, key: `k:${id}`, owner: `o:${id}` });
    const leaseOf = (id: string) => target.client.exists(`${prefix}order:t:${id}#run`);
    const ok = (): AttemptOutcome => ({ ok: true });
    await order.runInTurn(job('run_a'), async () => {
      expect(await leaseOf('run_a')).toBe(1);
      return ok();
    });
    // The next job's take gives a's lease back in the same script.
    await order.runInTurn(job('run_b'), async () => {
      expect(await leaseOf('run_a')).toBe(0);
      return ok();
    });
    expect(calls).toEqual(['take', 'takeGiving']);
    // No take follows b's: its lease is given back alone.
    await until(async () => (await leaseOf('run_b')) === 0);
    expect(calls).toEqual(['take', 'takeGiving', 'give']);
  });
});
