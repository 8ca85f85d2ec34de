import { describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { redisJournal } from '../../src/redis/index.js';
import { useRedisTargets, redisTargetNames } from '../helpers/redis-targets.js';
import { entry } from '../journal/journal-entries.js';
import { floodWithForgeries } from '../journal/forged-flood.js';

// Issue 31: unverified deliveries are kept apart, with their own bound.
const target = useRedisTargets();
let run = 0;
const freshPrefix = () => `test:{forged${++run}}:`;

describe.each(redisTargetNames)('redisJournal on %s: forged deliveries have their own share', (name) => {
  it('a flood of forged deliveries never evicts a genuine one', async () => {
    const journal = redisJournal({ client: target(name).client, prefix: freshPrefix(), max: 50, maxUnverified: 8 });
    await floodWithForgeries(journal, { genuine: 20, forged: 600, maxUnverified: 8 });
  }, 60_000);

  it('pages newest first across both kinds, and drops each past its own bound', async () => {
    const journal = redisJournal({ client: target(name).client, prefix: freshPrefix(), max: 3, maxUnverified: 2 });
    const added = [entry(), entry({ verified: false, status: 401 }), entry(), entry({ verified: false, status: 401 })];
    added.push(entry({ verified: false, status: 401 }), entry(), entry());
    for (const e of added) await journal.add(e);
    expect((await journal.list()).map((e) => e.id)).toEqual([6, 5, 4, 3, 2].map((i) => added[i]!.id));
    expect((await journal.list({ limit: 2, before: added[5]!.id })).map((e) => e.id)).toEqual([added[4]!.id, added[3]!.id]);
    expect(await journal.get(added[1]!.id)).toBeUndefined();
    expect(await journal.get(added[0]!.id)).toBeUndefined();
  });

  it('refuses a bad maxUnverified', () => {
    expect(() => redisJournal({ client: target(name).client, maxUnverified: 0 })).toThrow(PixhookConfigError);
  });
});
