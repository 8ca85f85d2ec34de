// Issue 36, bench goal "Redis claim + book + lease ≤ 1.3× the bare claim": with a Redis store and a Redis book on one
// client (their keys in one slot), the resource order lease, the dedupe claim and the book's read are ONE script,
// and the commit after the handlers (book, done mark, lease) one more: two scripts per applied event (three before),
// one per duplicate (two before). The lease keeps the fair ticket queue of issue 36 §5 inside that script.
import { describe, expect, it } from 'vitest';
import { joinedClaimOf } from '../../src/book/joined-claim.js';
import { createProcessing, type PixEvent } from '../../src/index.js';
import { resourceOf } from '../../src/processing/resource-order.js';
import { orderLeaseKeys } from '../../src/redis/order-lease.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { registeredOrderLeases } from '../../src/shared/order-lease.js';
import { chargeEvent } from '../book/book-events.js';
import { redisTargetNames, useRedisTargets, type RedisTarget } from '../helpers/redis-targets.js';

const targets = useRedisTargets();
let run = 0;

/** A store and a book sharing one {hash tag} on one client: the configuration whose claim joins the lease and the book. */
function joinedPair(target: RedisTarget, client = target.connect()) {
  const tag = `jl${++run}`;
  const store = redisDedupeStore({ client, prefix: `{${tag}}:d:`, quarantine: false });
  const book = redisPaymentBook({ client, prefix: `{${tag}}:book:` });
  return { client, store, book, storePrefix: `{${tag}}:d:` };
}

/** Counts the scripts `client` runs (each one EVALSHA: one round trip). */
function countScripts(client: ReturnType<RedisTarget['connect']>): { count: () => number } {
  let scripts = 0;
  const shape = client as unknown as { evalsha: (...args: unknown[]) => Promise<unknown> };
  const evalsha = shape.evalsha.bind(client);
  shape.evalsha = (...args: unknown[]) => {
    scripts++;
    return evalsha(...args);
  };
  return { count: () => scripts };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(redisTargetNames)('the order lease, the claim and the book read in one script (%s)', (name) => {
  it('an applied event costs two scripts (lease, claim and read; then book, done mark and lease), a duplicate one', async () => {
    const { client, store, book, storePrefix } = joinedPair(targets(name));
    const scripts = countScripts(client);
    const processing = createProcessing({ store, book }).on(['transaction_created', 'transaction_paid'], () => {});
    // Warm up: the server loads each script once (NOSCRIPT, then EVAL) and the persistence check runs once.
    expect((await processing.accept(chargeEvent('transaction_created', { id: 'ch_warm' }))).reason).toBeUndefined();
    expect((await processing.accept(chargeEvent('transaction_paid', { id: 'ch_warm', endToEndId: 'E0' }))).reason).toBeUndefined();
    expect((await processing.accept(chargeEvent('transaction_paid', { id: 'ch_warm', endToEndId: 'E0' }))).reason).toBe('duplicate');

    const before = scripts.count();
    expect((await processing.accept(chargeEvent('transaction_paid', { id: 'ch_two', endToEndId: 'E1' }))).reason).toBeUndefined();
    expect(scripts.count() - before).toBe(2);
    // The sender's retry: answered duplicate from the one script's reply (before it could queue for the lease).
    expect((await processing.accept(chargeEvent('transaction_paid', { id: 'ch_two', endToEndId: 'E1' }))).reason).toBe('duplicate');
    expect(scripts.count() - before).toBe(3);
    expect((await book.get('ch_two'))?.status).toBe('paid');
    // Nothing left behind: the lease was given back by the commit.
    expect(await targets(name).keys(`${storePrefix}order:t:ch_two`)).toEqual([]);
  });

  it('serves waiters in arrival order: the latest asking first after the give-back is refused; done and in-flight keys never queue', async () => {
    const { client, store, book, storePrefix } = joinedPair(targets(name));
    const joined = joinedClaimOf(store, book)!;
    expect(joined).toBeDefined();
    const leases = registeredOrderLeases(store)!;
    const event = (amount: number): PixEvent =>
      chargeEvent('transaction_updated', { id: 'ch_fair', status: 'pending', amountInCents: amount });
    const resource = resourceOf(event(1));
    const [leaseKey, , tickets] = orderLeaseKeys(storePrefix, resource);
    const ask = (owner: string, key = `k_${owner}`) =>
      joined(key, owner, 60_000, event(1), { dedupeKey: key }, { resource, ttlMs: 60_000, ticketTtlMs: 60_000 });

    const holder = (await leases.take(resource, 'holder', 60_000))!;
    for (const owner of ['w1', 'w2', 'w3']) expect(await ask(owner)).toEqual({ claim: 'busy' });
    expect(await client.zrange(tickets, 0, -1)).toEqual(['w1', 'w2', 'w3']);
    // Refused asks claim nothing.
    expect(await client.get(`${storePrefix}k_w1`)).toBeNull();

    // A done key and another's claim answer at once, queuing nothing.
    await store.claim('k_done', 'o', 60_000);
    await store.complete('k_done', 'o', 60_000);
    expect(await ask('late', 'k_done')).toEqual({ claim: 'done' });
    await store.claim('k_busy', 'other', 60_000);
    expect(await ask('late', 'k_busy')).toEqual({ claim: 'in_flight' });
    expect(await client.zcard(tickets)).toBe(3);

    expect(await leases.give(resource, holder)).toBe(true);
    // The latest waiters ask first: refused, the first in line is served.
    expect(await ask('w3')).toEqual({ claim: 'busy' });
    expect(await ask('w2')).toEqual({ claim: 'busy' });
    const first = await ask('w1');
    if (first.claim !== 'claimed') throw new Error(`w1 was answered ${first.claim}`);
    expect(await client.get(leaseKey)).toBe(first.fence);
    expect(await client.get(`${storePrefix}k_w1`)).toBe('c:w1');
    expect(await client.zrange(tickets, 0, -1)).toEqual(['w2', 'w3']);
    // Its commit gives the lease back with the done mark: the next in line is served.
    expect(
      await first.recorded.commit!({ store, key: 'k_w1', owner: 'w1', ttlMs: 60_000, lease: { resource, fence: first.fence } }),
    ).toEqual({
      marked: true,
      leaseGiven: true,
    });
    expect(await client.get(`${storePrefix}k_w1`)).toBe('d');
    expect(await ask('w3')).toEqual({ claim: 'busy' });
    expect((await ask('w2')).claim).toBe('claimed');
  });

  it('a joined take is fenced by a token of its own: no counter key is made, and a stale fence of the same owner touches nothing', async () => {
    const { client, store, book, storePrefix } = joinedPair(targets(name));
    const joined = joinedClaimOf(store, book)!;
    const leases = registeredOrderLeases(store)!;
    const event = chargeEvent('transaction_paid', { id: 'ch_token', endToEndId: 'E_token' });
    const resource = resourceOf(event);
    const [leaseKey, counter] = orderLeaseKeys(storePrefix, resource);
    const ask = (ttlMs: number) =>
      joined('k_token', 'o', 60_000, event, { dedupeKey: 'k_token' }, { resource, ttlMs, ticketTtlMs: 60_000 });

    const first = await ask(40);
    if (first.claim !== 'claimed') throw new Error(`answered ${first.claim}`);
    expect(first.fence).toMatch(/^j[0-9a-f]{8}[0-9a-z]+:o$/);
    // One key fewer per charge than a counted take (take-lease.lua keeps `<lease>:n` for an hour).
    expect(await client.exists(counter)).toBe(0);
    // The lease lapses; the same owner (its claim is still its own) takes it again: another fence.
    while ((await client.exists(leaseKey)) === 1) await wait(10);
    const second = await ask(60_000);
    if (second.claim !== 'claimed') throw new Error(`answered ${second.claim}`);
    expect(second.fence).not.toBe(first.fence);
    expect(await leases.extend(resource, first.fence, 60_000)).toBe(false);
    expect(await leases.give(resource, first.fence)).toBe(false);
    expect(await client.get(leaseKey)).toBe(second.fence);
    expect(await leases.give(resource, second.fence)).toBe(true);
  });

  it("the commit's one read: another run's claim is left to it, another fence's lease is kept, a changed resource is read again", async () => {
    const { client, store, book, storePrefix } = joinedPair(targets(name));
    const joined = joinedClaimOf(store, book)!;
    const event = chargeEvent('transaction_paid', { id: 'ch_read', endToEndId: 'E_read' });
    const resource = resourceOf(event);
    const [leaseKey] = orderLeaseKeys(storePrefix, resource);
    const first = await joined('k_read', 'a', 60_000, event, { dedupeKey: 'k_read' }, { resource, ttlMs: 60_000, ticketTtlMs: 60_000 });
    if (first.claim !== 'claimed') throw new Error(`answered ${first.claim}`);
    // While the handlers ran: the claim lapsed and another run took it, the lease lapsed and another fence took it,
    // and an expectation was written to the charge (outside the lease, as `expect` is).
    await client.set(`${storePrefix}k_read`, 'c:b', 'PX', 60_000);
    await client.set(leaseKey, '9:other', 'PX', 60_000);
    const amountInCents = event.kind === 'transaction' ? event.transaction.amountInCents : 0;
    await book.expect({ id: 'ch_read', amountInCents });
    const committed = await first.recorded.commit!({
      store,
      key: 'k_read',
      owner: 'a',
      ttlMs: 60_000,
      lease: { resource, fence: first.fence },
    });
    expect(committed.marked).toBe(false);
    expect(await client.get(`${storePrefix}k_read`)).toBe('c:b');
    expect(await client.get(leaseKey)).toBe('9:other');
    // The compare-and-set saw the expectation and wrote the apply on top of it: both are there.
    const after = await book.get('ch_read');
    expect(after?.status).toBe('paid');
    expect(after?.expected?.amountInCents).toBe(amountInCents);
  });

  it('a joined claim whose book step fails gives back the claim and the lease it took', async () => {
    const { client, store, book, storePrefix } = joinedPair(targets(name));
    const joined = joinedClaimOf(store, book)!;
    const event = chargeEvent('transaction_paid', { id: 'ch_broken' });
    const resource = resourceOf(event);
    const [leaseKey] = orderLeaseKeys(storePrefix, resource);
    // The resource's stored JSON is unreadable: the book's step throws after the script claimed and took the lease.
    await client.set(`${storePrefix.replace(':d:', ':book:')}r:${resource}`, '{not json');
    await expect(
      joined('k_broken', 'owner', 60_000, event, { dedupeKey: 'k_broken' }, { resource, ttlMs: 60_000, ticketTtlMs: undefined }),
    ).rejects.toThrow();
    // The give-back is sent behind the failed step (never awaited by it): wait for its effect.
    while ((await client.get(leaseKey)) !== null) await wait(5);
    expect(await client.get(`${storePrefix}k_broken`)).toBeNull();
  });

  it('two processings: a delivery waits in the script’s queue and runs when the holder ends; past orderWaitMs it answers resource_busy, nothing claimed or queued', async () => {
    const target = targets(name);
    const a = joinedPair(target);
    const tag = a.storePrefix.slice(0, a.storePrefix.indexOf('}') + 1);
    const client = target.connect();
    const b = {
      store: redisDedupeStore({ client, prefix: a.storePrefix, quarantine: false }),
      book: redisPaymentBook({ client, prefix: `${tag}:book:` }),
    };
    const started: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const handler = async (event: PixEvent) => {
      started.push(event.name);
      if (event.name === 'transaction_created') await gate;
    };
    const first = createProcessing({ store: a.store, book: a.book, orderWaitMs: 60_000 }).on(
      ['transaction_created', 'transaction_paid'],
      handler,
    );
    const second = createProcessing({ store: b.store, book: b.book, orderWaitMs: 60_000 }).on(
      ['transaction_created', 'transaction_paid'],
      handler,
    );
    const created = first.accept(chargeEvent('transaction_created', { id: 'ch_turn' }));
    while (started.length === 0) await wait(5);
    const paid = second.accept(chargeEvent('transaction_paid', { id: 'ch_turn', endToEndId: 'E9' }));
    const [, , tickets] = orderLeaseKeys(a.storePrefix, 't:ch_turn');
    while ((await client.zcard(tickets)) === 0) await wait(5);
    expect(started).toEqual(['transaction_created']);
    open();
    expect((await created).reason).toBeUndefined();
    expect((await paid).reason).toBeUndefined();
    expect(started).toEqual(['transaction_created', 'transaction_paid']);
    expect((await a.book.get('ch_turn'))?.status).toBe('paid');

    const leases = registeredOrderLeases(a.store)!;
    const holder = (await leases.take('t:ch_quit', 'holder', 60_000))!;
    const impatient = createProcessing({ store: b.store, book: b.book, orderWaitMs: 50 }).on('transaction_paid', handler);
    expect(await impatient.accept(chargeEvent('transaction_paid', { id: 'ch_quit' }))).toMatchObject({ reason: 'resource_busy' });
    expect(await client.zcard(orderLeaseKeys(a.storePrefix, 't:ch_quit')[2])).toBe(0);
    expect(await target.keys(`${a.storePrefix}transaction_paid:ch_quit*`)).toEqual([]);
    expect(await leases.give('t:ch_quit', holder)).toBe(true);
  });
});
