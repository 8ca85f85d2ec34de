import { describe, expect, it } from 'vitest';
import { createProcessing, memoryDedupeStore } from '../../src/index.js';
import { postgresPaymentBook } from '../../src/postgres/index.js';
import { chargeEvent } from '../book/book-events.js';
import { t0 } from '../book/book-operations.js';
import { paymentIdentityScenarios } from '../book/payment-identity-scenarios.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();

describe('one identity per payment fact, on postgresPaymentBook', () => {
  paymentIdentityScenarios(async () => {
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') });
    await book.migrate();
    return { book, store: () => memoryDedupeStore() };
  });

  it('amounts keep every digit: 123456789012340 cents against 123456789012345 expected is held', async () => {
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') });
    await book.migrate();
    await book.expect({ id: 'big', amountInCents: 123456789012345 });
    const processing = createProcessing({ book });
    expect(await processing.accept(chargeEvent('transaction_paid', { id: 'big', amountInCents: 123456789012340 }))).toMatchObject({
      reason: 'held',
    });
  });

  it('a release renews its lease; one that lost its lease never answers ok', async () => {
    let now = t0;
    const table = freshTable('book');
    const one = postgresPaymentBook({ db: db().pool, table, now: () => now, releaseLeaseMs: 60_000 });
    const two = postgresPaymentBook({ db: db().pool, table, now: () => now, releaseLeaseMs: 60_000 });
    await one.migrate();
    await one.expect({ id: 'c', amountInCents: 2000 });
    const held = (await one.record(chargeEvent('transaction_paid', { id: 'c' }), { dedupeKey: 'pc' })) as { heldId: string };
    expect(await one.claimRelease(held.heldId)).toMatchObject({ ok: true, leaseMs: 60_000 });
    now += 50_000;
    expect(await one.renewRelease(held.heldId)).toBe(true);
    now += 50_000;
    expect(await two.claimRelease(held.heldId)).toEqual({ ok: false, reason: 'already_released' });
    now += 60_001;
    expect(await two.claimRelease(held.heldId)).toMatchObject({ ok: true });
    expect(await one.renewRelease(held.heldId)).toBe(false);
    expect(await one.finishRelease(held.heldId, true)).toBe(false);
    expect(await two.finishRelease(held.heldId, true, { by: 'ana', note: 'ok' })).toBe(true);
  });
});
