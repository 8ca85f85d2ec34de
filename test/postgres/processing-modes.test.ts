import { describe, expect, it } from 'vitest';
import { createProcessing, normalizeEvent, type AckMode, type PixEventOf } from '../../src/index.js';
import { postgresInbox, transactionalOutcome } from '../../src/postgres/index.js';
import { transactionPaid } from '../../src/testing/index.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
type Paid = PixEventOf<'transaction_paid'>;

function paid(id: string): Paid {
  const read = normalizeEvent(transactionPaid({ id, seed: 11 }));
  if (!read.ok || read.event.kind === 'unknown') throw new Error('fixture did not normalize');
  return read.event as Paid;
}

describe.each<AckMode>(['inline', 'background'])(
  'createProcessing({ mode: %s, store: inbox.store }) with a transactional handler',
  (mode) => {
    it('answers duplicates from the store, runs each event once, and a failed run leaves no row and no mark', async () => {
      const inbox = postgresInbox({ pool: db().pool, table: freshTable() });
      await inbox.migrate();
      const ledger = freshTable('ledger');
      await db().pool.query(`CREATE TABLE ${ledger} (event_key text NOT NULL)`);
      let failNext = true;
      const processing = createProcessing({
        mode,
        store: inbox.store,
        ...(mode === 'background' && { retry: { backoff: { delayMs: 10 } } }),
      });
      processing.on(
        'transaction_paid',
        inbox.transactional(async (event, { key, tx }) => {
          // The event is typed from the registration: no annotation needed.
          expect(event.transaction.id).toMatch(/^tx_m/);
          await tx.query(`INSERT INTO ${ledger} (event_key) VALUES ($1)`, [key]);
          if (failNext) {
            failNext = false;
            throw new Error('first run fails after its insert');
          }
        }),
      );
      const events = [paid('tx_m1'), paid('tx_m2'), paid('tx_m3')];
      const first = await Promise.all(events.map((e) => processing.accept(e)));
      await processing.drain();
      const inlineFailed = first.filter((r) => r.reason === 'handler_failed').length;
      expect(inlineFailed).toBe(mode === 'inline' ? 1 : 0);
      // Redeliver everything: the failed one (inline) runs now, the others are duplicates.
      const second = await Promise.all(events.map((e) => processing.accept(e)));
      await processing.drain();
      expect(second.filter((r) => r.reason === 'duplicate')).toHaveLength(mode === 'inline' ? 2 : 3);
      const { rows } = await db().pool.query(`SELECT event_key FROM ${ledger} ORDER BY 1`);
      expect(rows).toHaveLength(3);
      expect(new Set(rows.map((r: { event_key: string }) => r.event_key)).size).toBe(3);
      expect(inbox.store.held).toBe(0);
      await inbox.close();
    });
  },
);

describe('the in-memory store with a transactional handler (two instances, no shared store)', () => {
  it('the inbox alone keeps effects exactly-once: the second instance’s run is skipped', async () => {
    const inbox = postgresInbox({ pool: db().pool, table: freshTable() });
    await inbox.migrate();
    const ledger = freshTable('ledger');
    await db().pool.query(`CREATE TABLE ${ledger} (event_key text NOT NULL)`);
    const outcomes: (string | undefined)[] = [];
    const instance = () =>
      createProcessing()
        .on(
          'transaction_paid',
          inbox.transactional(async (_e, { key, tx }) => void (await tx.query(`INSERT INTO ${ledger} (event_key) VALUES ($1)`, [key]))),
        )
        .onAny((_e, context) => void outcomes.push(transactionalOutcome(context)));
    const [a, b] = [instance(), instance()];
    const event = paid('tx_two_instances');
    expect((await a.accept(event)).reason).toBeUndefined();
    // b's memory store never saw it: it runs, the inbox finds the key done, and b answers as for a duplicate.
    expect((await b.accept(event)).reason).toBe('duplicate');
    expect(outcomes).toEqual(['handled', 'skipped']);
    expect(a.metrics()).toMatchObject({ handled: 1, alreadyApplied: 0 });
    expect(b.metrics()).toMatchObject({ handled: 0, alreadyApplied: 1 });
    expect((await db().pool.query(`SELECT count(*)::int AS n FROM ${ledger}`)).rows[0].n).toBe(1);
  });
});
