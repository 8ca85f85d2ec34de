import { describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { redisDedupeStore } from '../../src/redis/index.js';
import { redisOrderLeases } from '../../src/redis/order-lease.js';
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
});
