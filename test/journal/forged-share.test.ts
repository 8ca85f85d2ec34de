import { describe, expect, it } from 'vitest';
import { memoryJournal, PixhookConfigError } from '../../src/index.js';
import { entry } from './journal-entries.js';
import { floodWithForgeries } from './forged-flood.js';

// Issue 31: 1 000 cheap forged requests used to push every genuine entry out of the journal.
describe('memoryJournal: unverified deliveries have their own bounded share', () => {
  it('a flood of forged deliveries never evicts a genuine one', async () => {
    const journal = memoryJournal({ max: 100 });
    await floodWithForgeries(journal, { genuine: 30, forged: 1500, maxUnverified: 10 });
    expect(journal.size).toBe(31 + 10);
  });

  it('keeps the newest `maxUnverified` unverified entries, and the newest `max` genuine ones', async () => {
    const journal = memoryJournal({ max: 3, maxUnverified: 2 });
    const added = [
      entry(),
      entry({ verified: false, status: 401 }),
      entry(),
      entry({ verified: false, status: 401 }),
      entry({ verified: false, status: 401 }),
      entry(),
      entry(),
    ];
    for (const e of added) await journal.add(e);
    const expected = [6, 5, 4, 3, 2].map((i) => added[i]!.id);
    expect((await journal.list()).map((e) => e.id)).toEqual(expected);
    expect((await journal.list({ limit: 2, before: added[5]!.id })).map((e) => e.id)).toEqual([added[4]!.id, added[3]!.id]);
    expect(await journal.get(added[1]!.id)).toBeUndefined();
    expect(await journal.get(added[0]!.id)).toBeUndefined();
  });

  it.each([0, 1.5, '10'])('refuses maxUnverified %j', (value) => {
    expect(() => memoryJournal({ maxUnverified: value as never })).toThrow(PixhookConfigError);
    expect(() => memoryJournal({ maxUnverified: value as never })).toThrow('maxUnverified');
  });
});
