import { describe, expect, it } from 'vitest';
import { createReceiver, PixhookConfigError, type JournalEntry } from '../../src/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { variantAPaid, variantBPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { entry } from '../journal/journal-entries.js';
import { startFixture, stopAllFixtures } from '../redis/fixture-process.js';
import { freshTable, usePostgres } from './use-postgres.js';
import { afterAll } from 'vitest';
import pg from 'pg';

const secret = 'whsec_postgres_journal';
const postgres = usePostgres();
afterAll(() => stopAllFixtures());

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body, remoteAddress: '198.51.100.9' };
}

describe('postgresJournal', () => {
  it('keeps the newest `max`, newest first, with filters, paging and attempts', async () => {
    const journal = postgresJournal({ db: postgres().pool, table: freshTable('journal'), max: 5 });
    const added: JournalEntry[] = [];
    for (let i = 0; i < 8; i++)
      added.push(
        entry({ status: i % 2 === 0 ? 200 : 503, resourceId: `r${i % 3}`, reason: i % 2 === 0 ? undefined : 'store_unavailable' }),
      );
    for (const e of added) await journal.add(e);
    const newest = added.slice(3).reverse();
    expect((await journal.list()).map((e) => e.id)).toEqual(newest.map((e) => e.id));
    expect(await journal.get(added[0]!.id)).toBeUndefined();
    expect(await journal.get(added[7]!.id)).toEqual(added[7]);
    expect((await journal.list({ status: 503 })).map((e) => e.id)).toEqual(newest.filter((e) => e.status === 503).map((e) => e.id));
    expect((await journal.list({ reason: 'store_unavailable', resource: 'r1' })).map((e) => e.id)).toEqual(
      newest.filter((e) => e.status === 503 && e.resourceId === 'r1').map((e) => e.id),
    );
    expect(await journal.list({ event: 'transfer_completed' })).toEqual([]);
    const first = await journal.list({ limit: 2 });
    expect((await journal.list({ limit: 2, before: first[1]!.id })).map((e) => e.id)).toEqual(newest.slice(2, 4).map((e) => e.id));
    await journal.addAttempt(added[7]!.id, { attempt: 1, at: added[7]!.at, durationMs: 2, outcome: 'failed', error: 'x' });
    await journal.addAttempt(added[7]!.id, { attempt: 2, at: added[7]!.at, durationMs: 1, outcome: 'ok' });
    await journal.addAttempt(added[0]!.id, { attempt: 1, at: added[0]!.at, durationMs: 1, outcome: 'ok' });
    expect((await journal.get(added[7]!.id))!.attempts.map((a) => a.outcome)).toEqual(['failed', 'ok']);
  });

  it('two receivers write one shared journal, and a reader process hears both live', async () => {
    const table = freshTable('journal');
    const reader = startFixture(new URL('./fixtures/journal-reader.js', import.meta.url).pathname, {
      DATABASE_URL: postgres().server.url,
      TABLE: table,
    });
    await reader.waitFor((line) => typeof line['ready'] === 'number');
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: postgres().server.url, max: 2 }));
    try {
      const receivers = pools.map((pool) =>
        createReceiver({ secret, journal: postgresJournal({ db: pool, table }) }).on('transaction_paid', () => undefined),
      );
      expect((await receivers[0]!.receive(delivery(variantAPaid))).status).toBe(200);
      expect((await receivers[1]!.receive(delivery(variantBPaid))).status).toBe(200);
      await Promise.all(receivers.map((r) => r.drain()));
      expect(receivers.map((r) => r.metrics().journalFailures)).toEqual([0, 0]);
      const entries = await postgresJournal({ db: postgres().pool, table }).list({ event: 'transaction_paid' });
      expect(entries.map((e) => e.resourceId).sort()).toEqual(['tx_a_0001', 'tx_b_0001']);
      expect(entries.every((e) => e.remoteAddress === '198.51.100.9' && e.attempts[0]?.outcome === 'ok')).toBe(true);
      for (const e of entries) {
        expect(await reader.waitFor((line) => line['entry'] === e.id)).toMatchObject({
          event: 'transaction_paid',
          status: 200,
          attempts: ['ok'],
        });
      }
    } finally {
      await reader.stop();
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('refuses bad options in the house format', () => {
    expect(() => postgresJournal({ db: postgres().pool, max: 0 })).toThrow(PixhookConfigError);
    expect(() => postgresJournal({ db: postgres().pool, table: 'x; drop' })).toThrow('pixhook: `table` must be a plain identifier');
    expect(() => postgresJournal({ db: undefined as never })).toThrow(
      'pixhook: `db` must be a pg Pool or Client, or a SqlDatabase, got undefined',
    );
  });
});
