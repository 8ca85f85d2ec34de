import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createProcessing, eventKey, PixhookConfigError } from '../../src/index.js';
import { memoryPaymentBook } from '../../src/book/memory-payment-book.js';
import { postgresInbox, postgresPaymentBook, type TransactionalContext } from '../../src/postgres/index.js';
import { chargeEvent } from '../book/book-events.js';
import { bookOperation, runOperations, t0 } from '../book/book-operations.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();

async function freshBook(options: { now?: () => number; pool?: pg.Pool } = {}) {
  const table = freshTable('book');
  const book = postgresPaymentBook({ db: options.pool ?? db().pool, table, ...(options.now && { now: options.now }) });
  await book.migrate();
  return { book, table };
}

describe('postgresPaymentBook', () => {
  it('keeps a resource, its timeline and its holds; a retry of a held event is the same hold', async () => {
    const { book } = await freshBook({ now: () => t0 });
    expect(await book.get('c')).toBeUndefined();
    await book.record(chargeEvent('transaction_refunded', { id: 'c' }), { dedupeKey: 'r' });
    const held = await book.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' });
    expect(held).toMatchObject({ outcome: 'held', violations: [{ reason: 'stale_status' }] });
    const heldId = (held as { heldId: string }).heldId;
    expect(await book.retryOfHeld(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' })).toMatchObject({ heldId });
    expect(await book.retryOfHeld(chargeEvent('transaction_refunded', { id: 'c' }), { dedupeKey: 'r' })).toBeUndefined();
    expect((await book.held()).map((entry) => entry.heldId)).toEqual([heldId]);
    expect(await book.dismiss(heldId, 'late')).toEqual({ ok: true });
    expect(await book.dismiss(heldId, 'late')).toEqual({ ok: false, reason: 'dismissed' });
    expect((await book.get('c'))?.timeline.map((entry) => entry.outcome)).toEqual(['apply', 'held', 'duplicate_hold', 'dismissed']);
    expect(() => postgresPaymentBook({ db: db().pool, table: 'bad name' })).toThrow(PixhookConfigError);
  });

  it('runs a release exactly once across two pools, and a crashed releaser’s event is held again after its lease', async () => {
    let now = t0;
    const table = freshTable('book');
    const other = new pg.Pool({ connectionString: db().server.url, max: 4 });
    try {
      const one = postgresPaymentBook({ db: db().pool, table, now: () => now, releaseLeaseMs: 60_000 });
      const two = postgresPaymentBook({ db: other, table, now: () => now, releaseLeaseMs: 60_000 });
      await one.migrate();
      await one.record(chargeEvent('transaction_refunded', { id: 'c' }), { dedupeKey: 'r' });
      const { heldId } = (await one.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'p' })) as { heldId: string };
      const claims = await Promise.all([one.claimRelease(heldId), two.claimRelease(heldId), two.claimRelease(heldId)]);
      expect(claims.filter((claim) => claim.ok)).toHaveLength(1);
      now += 60_001;
      expect((await two.held()).map((entry) => entry.state)).toEqual(['held']);
      expect((await two.claimRelease(heldId)).ok).toBe(true);
      expect(await two.finishRelease(heldId, true)).toBe(true);
      expect(await one.claimRelease(heldId)).toEqual({ ok: false, reason: 'already_released' });
      expect((await one.get('c'))?.timeline.map((entry) => entry.outcome)).toEqual(['apply', 'held', 'released']);
    } finally {
      await other.end();
    }
  });

  it('decides every random sequence exactly as the memory book (differential)', async () => {
    const { book, table } = await freshBook({ now: () => t0 });
    await fc.assert(
      fc.asyncProperty(fc.array(bookOperation, { minLength: 1, maxLength: 12 }), async (ops) => {
        await db().pool.query(`TRUNCATE "${table}_resources", "${table}_held", "${table}_flags"`);
        const memory = await runOperations(memoryPaymentBook({ now: () => t0 }), ops);
        expect(await runOperations(book, ops)).toEqual(memory);
      }),
      { numRuns: 25 },
    );
  });
});

describe('postgresPaymentBook in the inbox transaction', () => {
  async function setup(pool: pg.Pool, names: { inbox: string; book: string; ledger: string }) {
    const inbox = postgresInbox({ pool, table: names.inbox });
    const book = postgresPaymentBook({ db: pool, inbox, table: names.book });
    const processing = createProcessing({ store: inbox.store, book });
    return { inbox, book, processing };
  }

  it('rolls the book entry back with the ledger when the transactional handler throws, and commits both when it succeeds', async () => {
    const names = { inbox: freshTable(), book: freshTable('book'), ledger: freshTable('ledger') };
    const { inbox, book, processing } = await setup(db().pool, names);
    await Promise.all([inbox.migrate(), book.migrate(), db().pool.query(`CREATE TABLE ${names.ledger} (key text PRIMARY KEY)`)]);
    let fail = true;
    processing.on(
      'transaction_paid',
      inbox.transactional(async (_event, { tx, key }: TransactionalContext) => {
        await tx.query(`INSERT INTO ${names.ledger} (key) VALUES ($1)`, [key]);
        if (fail) throw new Error('ledger refused');
      }),
    );
    const paid = chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' });
    expect((await processing.accept(paid)).reason).toBe('handler_failed');
    expect(await book.get('c')).toBeUndefined();
    expect((await db().pool.query(`SELECT key FROM ${names.ledger}`)).rows).toEqual([]);
    fail = false;
    expect((await processing.accept(paid)).reason).toBeUndefined();
    expect((await book.get('c'))?.timeline.map((entry) => [entry.status, entry.outcome])).toEqual([['paid', 'apply']]);
    expect((await db().pool.query(`SELECT key FROM ${names.ledger}`)).rows).toEqual([{ key: eventKey(paid) }]);
    expect((await processing.accept(paid)).reason).toBe('duplicate');
    await inbox.close();
  });

  it('two instances (two pools) receiving paid and refunded of one charge at once take turns: one handler runs after the other committed', async () => {
    const names = { inbox: freshTable(), book: freshTable('book'), ledger: freshTable('ledger') };
    const pools = [db().pool, new pg.Pool({ connectionString: db().server.url, max: 8 })];
    const instances = await Promise.all(pools.map((pool) => setup(pool, names)));
    await Promise.all([instances[0]!.inbox.migrate(), instances[0]!.book.migrate()]);
    await db().pool.query(`CREATE TABLE ${names.ledger} (seq serial, name text, phase text)`);
    const steps: string[] = [];
    for (const { inbox, processing } of instances) {
      processing.on(
        ['transaction_paid', 'transaction_refunded'],
        inbox.transactional(async (event, { tx }: TransactionalContext) => {
          steps.push(`${event.name} in`);
          await tx.query(`INSERT INTO ${names.ledger} (name, phase) VALUES ($1, 'in')`, [event.name]);
          await new Promise((resolve) => setTimeout(resolve, 30));
          steps.push(`${event.name} out`);
        }),
      );
    }
    try {
      const answers = await Promise.all([
        instances[0]!.processing.accept(chargeEvent('transaction_paid', { id: 'c', endToEndId: 'E1' })),
        instances[1]!.processing.accept(chargeEvent('transaction_refunded', { id: 'c', endToEndId: 'E1' })),
      ]);
      // The resource's row lock is held until the first commits: the handlers never overlap.
      const first = steps[0]?.split(' ')[0] ?? '';
      const second = first === 'transaction_paid' ? 'transaction_refunded' : 'transaction_paid';
      expect(steps.slice(0, 2)).toEqual([`${first} in`, `${first} out`]);
      if (steps.length > 2) expect(steps.slice(2)).toEqual([`${second} in`, `${second} out`]);
      expect(answers.map((answer) => answer.reason).filter((reason) => reason !== undefined && reason !== 'held')).toEqual([]);
      const resource = await instances[0]!.book.get('c');
      // Whichever came first, the book ends refunded, nothing backwards; a paid after refunded is held, not applied.
      expect(resource?.status).toBe('refunded');
      const applied = resource?.timeline.filter((entry) => entry.outcome === 'apply').map((entry) => entry.status);
      expect(applied === undefined || applied.join() === 'paid,refunded' || applied.join() === 'refunded').toBe(true);
    } finally {
      await Promise.all(instances.map(({ inbox }) => inbox.close()));
      await pools[1]!.end();
    }
  });
});
