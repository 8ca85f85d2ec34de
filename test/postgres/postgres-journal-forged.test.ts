import { describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { entry } from '../journal/journal-entries.js';
import { floodWithForgeries } from '../journal/forged-flood.js';
import { freshTable, usePostgres } from './use-postgres.js';

// Issue 31: in a 10 s flood of forged requests on postgresJournal, only 9 of 76 genuine deliveries were kept.
const postgres = usePostgres();

describe('postgresJournal: forged deliveries have their own share', () => {
  it('a flood of forged deliveries never evicts a genuine one', async () => {
    const journal = postgresJournal({ db: postgres().pool, table: freshTable('journal'), max: 50, maxUnverified: 8 });
    await floodWithForgeries(journal, { genuine: 20, forged: 400, maxUnverified: 8 });
  }, 60_000);

  it('pages newest first across both kinds, and drops each past its own bound', async () => {
    const journal = postgresJournal({ db: postgres().pool, table: freshTable('journal'), max: 3, maxUnverified: 2 });
    const added = [entry(), entry({ verified: false, status: 401 }), entry(), entry({ verified: false, status: 401 })];
    added.push(entry({ verified: false, status: 401 }), entry(), entry());
    for (const e of added) await journal.add(e);
    expect((await journal.list()).map((e) => e.id)).toEqual([6, 5, 4, 3, 2].map((i) => added[i]!.id));
    expect(await journal.get(added[1]!.id)).toBeUndefined();
  });

  it('adds the column to a table an older version made', async () => {
    const table = freshTable('journal');
    await postgres().pool.query(
      `CREATE TABLE "${table}" (id text PRIMARY KEY, fields text NOT NULL, attempts jsonb NOT NULL DEFAULT '[]'::jsonb, event text, status int NOT NULL, reason text, resource_id text, change bigint NOT NULL DEFAULT 0)`,
    );
    const journal = postgresJournal({ db: postgres().pool, table, max: 5 });
    const genuine = entry();
    await journal.add(genuine);
    expect(await journal.get(genuine.id)).toEqual(genuine);
  });

  it('refuses a bad maxUnverified', () => {
    expect(() => postgresJournal({ db: postgres().pool, maxUnverified: -1 })).toThrow(PixhookConfigError);
  });
});
