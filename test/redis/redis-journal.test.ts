import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, PixhookConfigError, type JournalEntry } from '../../src/index.js';
import { redisJournal } from '../../src/redis/index.js';
import { variantAPaid, variantBPaid } from '../contract/fixtures.js';
import { useRedisTargets, redisTargetNames } from '../helpers/redis-targets.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { entry } from '../journal/journal-entries.js';
import { startFixture, stopAllFixtures } from './fixture-process.js';

const secret = 'whsec_redis_journal';
const target = useRedisTargets();
afterAll(() => stopAllFixtures());

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body, remoteAddress: '198.51.100.4' };
}

let run = 0;
const freshPrefix = () => `test:{journal${++run}}:`;

describe.each(redisTargetNames)('redisJournal on %s', (name) => {
  it('keeps the newest `max`, newest first, with filters, paging and attempts', async () => {
    const journal = redisJournal({ client: target(name).client, prefix: freshPrefix(), max: 5 });
    const added: JournalEntry[] = [];
    for (let i = 0; i < 8; i++) added.push(entry({ status: i % 2 === 0 ? 200 : 503, resourceId: `r${i % 3}` }));
    for (const e of added) await journal.add(e);
    const newest = added.slice(3).reverse();
    expect((await journal.list()).map((e) => e.id)).toEqual(newest.map((e) => e.id));
    expect(await journal.get(added[0]!.id)).toBeUndefined();
    expect(await journal.get(added[7]!.id)).toEqual(added[7]);
    expect((await journal.list({ status: 503 })).map((e) => e.id)).toEqual(newest.filter((e) => e.status === 503).map((e) => e.id));
    expect((await journal.list({ resource: 'r1' })).map((e) => e.id)).toEqual(newest.filter((e) => e.resourceId === 'r1').map((e) => e.id));
    const first = await journal.list({ limit: 2 });
    expect((await journal.list({ limit: 2, before: first[1]!.id })).map((e) => e.id)).toEqual(newest.slice(2, 4).map((e) => e.id));
    await journal.addAttempt(added[7]!.id, { attempt: 1, at: added[7]!.at, durationMs: 2, outcome: 'failed', error: 'x' });
    await journal.addAttempt(added[7]!.id, { attempt: 2, at: added[7]!.at, durationMs: 1, outcome: 'ok' });
    await journal.addAttempt(added[0]!.id, { attempt: 1, at: added[0]!.at, durationMs: 1, outcome: 'ok' });
    expect((await journal.get(added[7]!.id))!.attempts.map((a) => a.outcome)).toEqual(['failed', 'ok']);
    expect(await journal.get(added[0]!.id)).toBeUndefined();
  });

  it('two receivers write one shared journal, and a reader process hears both live', async () => {
    const prefix = freshPrefix();
    const reader = startFixture('journal-reader.js', { REDIS_URL: target(name).url, PREFIX: prefix });
    await reader.waitFor((line) => typeof line['ready'] === 'number');
    const receivers = [0, 1].map(() =>
      createReceiver({ secret, journal: redisJournal({ client: target(name).connect(), prefix }) }).on('transaction_paid', () => undefined),
    );
    expect((await receivers[0]!.receive(delivery(variantAPaid))).status).toBe(200);
    expect((await receivers[1]!.receive(delivery(variantBPaid))).status).toBe(200);
    await Promise.all(receivers.map((r) => r.drain()));
    expect(receivers.map((r) => r.metrics().journalFailures)).toEqual([0, 0]);
    const shared = redisJournal({ client: target(name).client, prefix });
    const entries = await shared.list({ event: 'transaction_paid' });
    expect(entries.map((e) => e.resourceId).sort()).toEqual(['tx_a_0001', 'tx_b_0001']);
    expect(entries.every((e) => e.remoteAddress === '198.51.100.4' && e.attempts[0]?.outcome === 'ok')).toBe(true);
    for (const e of entries) {
      const heard = await reader.waitFor((line) => line['entry'] === e.id);
      expect(heard).toMatchObject({ event: 'transaction_paid', status: 200, attempts: ['ok'] });
    }
    await reader.stop();
  });

  it('subscribe in this process hears a write from another client, and stops when unsubscribed', async () => {
    const prefix = freshPrefix();
    const other = redisJournal({ client: target(name).connect(), prefix });
    const mine = redisJournal({ client: target(name).client, prefix, pollMs: 20 });
    const heard: string[] = [];
    let resolveHeard: () => void;
    const gotTwo = new Promise<void>((resolve) => (resolveHeard = resolve));
    const stop = mine.subscribe((e) => {
      heard.push(`${e.id}:${e.attempts.length}`);
      if (heard.length === 2) resolveHeard();
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const a = entry();
    await other.add(a);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.addAttempt(a.id, { attempt: 1, at: a.at, durationMs: 1, outcome: 'ok' });
    await gotTwo;
    stop();
    expect(heard).toEqual([`${a.id}:0`, `${a.id}:1`]);
  });
});

describe('redisJournal options', () => {
  it('refuses a prefix without a hash tag on a Cluster, and bad options, in the house format', () => {
    expect(() => redisJournal({ client: target('cluster').client, prefix: 'shop:journal:' })).toThrow(/must carry a \{hash tag\}/);
    expect(() => redisJournal({ client: target('single').client, max: 0 })).toThrow(PixhookConfigError);
    expect(() => redisJournal({ client: target('single').client, max: 0 })).toThrow(
      'pixhook: `max` must be an integer from 1 to 10000000, got 0',
    );
    expect(() => redisJournal({ client: target('single').client, pollMs: -1 })).toThrow('pixhook: `pollMs` must be an integer');
    expect(() => redisJournal({ client: {} as never })).toThrow(/`client` must be a Redis client/);
  });
});
