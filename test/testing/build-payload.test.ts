import { PixhookConfigError } from '../../src/index.js';
import { describe, expect, it } from 'vitest';
import { pixEventNames, transferEventNames, type PixEventName } from '../../src/events/event-names.js';
import { normalizeEvent } from '../../src/events/normalize-event.js';
import type { PixEvent } from '../../src/events/event-types.js';
import {
  buildPayload,
  defaultStatusOf,
  generateEndToEndId,
  isValidCnpj,
  isValidCpf,
  seededRandom,
  transactionPaid,
  transferCompleted,
} from '../../src/testing/index.js';

const variants = ['a', 'b', 'short'] as const;

function normalized(payload: unknown): PixEvent {
  const result = normalizeEvent(payload);
  if (!result.ok) throw new Error(`did not normalize: ${result.message}`);
  if (result.event.kind === 'unknown') throw new Error(`normalized as unknown: ${result.event.name}`);
  return result.event;
}

function resourceOf(event: PixEvent) {
  return event.kind === 'transaction' ? event.transaction : event.transfer;
}

describe('buildPayload', () => {
  for (const name of pixEventNames) {
    it(`${name}: every shape normalizes with the right name, kind and variant`, () => {
      for (const variant of variants) {
        const event = normalized(buildPayload(name, { variant, seed: 11 }));
        expect(event.name).toBe(name);
        expect(event.kind).toBe(name.startsWith('transfer_') ? 'transfer' : 'transaction');
        expect(event.variant).toBe(variant);
      }
    });

    it(`${name}: A, B and short of one seed describe the same resource`, () => {
      const [a, b, short] = variants.map((variant) => resourceOf(normalized(buildPayload(name, { variant, seed: 5 }))));
      const expected = { id: a!.id, status: defaultStatusOf[name], amountInCents: a!.amountInCents };
      for (const resource of [a, b, short]) {
        expect({ id: resource!.id, status: resource!.status, amountInCents: resource!.amountInCents }).toEqual(expected);
      }
    });
  }

  it('keeps overrides exactly and normalizes them alike in every shape', () => {
    for (const name of ['transaction_paid', 'transfer_updated'] as PixEventName[]) {
      for (const variant of variants) {
        const event = normalized(buildPayload(name, { variant, id: 'res-42', amountInCents: 1990, status: 'weird_new_status' }));
        // A transaction_paid is judged as a payment whatever status it states (read-status.ts); a transfer's status is kept.
        const status = name === 'transaction_paid' ? 'paid' : 'weird_new_status';
        expect(resourceOf(event)).toMatchObject({ id: 'res-42', amountInCents: 1990, status });
      }
    }
  });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(buildPayload('transaction_paid', { seed: 3, variant: 'b' })).toEqual(
      buildPayload('transaction_paid', { seed: 3, variant: 'b' }),
    );
    expect(buildPayload('transaction_paid', { seed: 3 })).not.toEqual(buildPayload('transaction_paid', { seed: 4 }));
  });

  it('generates fresh ids without a seed', () => {
    const ids = new Set(Array.from({ length: 20 }, () => resourceOf(normalized(transactionPaid())).id));
    expect(ids.size).toBe(20);
  });

  it('uses integer cents, a valid CPF for the customer and payer, and a 32-character endToEndId', () => {
    for (let seed = 0; seed < 50; seed++) {
      const a = normalized(transactionPaid({ seed }));
      const b = normalized(transactionPaid({ seed, variant: 'b' }));
      if (a.kind !== 'transaction' || b.kind !== 'transaction') throw new Error('expected transactions');
      expect(Number.isSafeInteger(a.transaction.amountInCents)).toBe(true);
      expect(a.transaction.amountInCents).toBeGreaterThanOrEqual(100);
      expect(a.transaction.netAmountInCents! + Math.round(a.transaction.amountInCents * 0.0099)).toBe(a.transaction.amountInCents);
      expect(isValidCpf(a.transaction.customer!.document!)).toBe(true);
      expect(isValidCpf(b.transaction.payer!.document!)).toBe(true);
      expect(b.transaction.endToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
      expect(b.transaction.endToEndId).toHaveLength(32);
    }
  });

  it('pays transfers to a valid CNPJ key and reports the settled endToEndId', () => {
    const event = normalized(transferCompleted({ seed: 9, variant: 'b' }));
    if (event.kind !== 'transfer') throw new Error('expected a transfer');
    expect(isValidCnpj(event.transfer.pixKey!)).toBe(true);
    expect(event.transfer.endToEndId).toHaveLength(32);
    expect(event.transfer.creditorAccount).toMatchObject({ document: event.transfer.pixKey });
  });

  it('builds the documented B shape, with scope, payer info and the B id defaulting to the resource id', () => {
    const payload = transactionPaid({ seed: 1, variant: 'b', scope: 'user' });
    expect(payload).toMatchObject({ type: 'transaction', event: 'transaction_paid', scope: 'user' });
    expect(payload['id']).toBe((payload['transaction'] as { id: string }).id);
    expect(Object.keys((payload['transaction'] as { pix: { payerInfo: object } }).pix.payerInfo).sort()).toEqual([
      'account_number',
      'account_type',
      'bank',
      'branch',
      'document',
      'name',
    ]);
  });

  it('keeps the short form to id, type, event and the resource', () => {
    for (const name of ['transaction_paid', ...transferEventNames] as PixEventName[]) {
      const payload = buildPayload(name, { variant: 'short', seed: 2 });
      expect(Object.keys(payload).sort()).toEqual(
        ['event', 'id', 'type', name.startsWith('transfer_') ? 'transfer' : 'transaction'].sort(),
      );
    }
  });

  it('adds refund details to transaction_refunded and none to pending charges', () => {
    const refunded = normalized(buildPayload('transaction_refunded', { seed: 4, variant: 'b' }));
    if (refunded.kind !== 'transaction') throw new Error('expected a transaction');
    expect(refunded.transaction.refund?.amountInCents).toBe(refunded.transaction.amountInCents);
    const created = normalized(buildPayload('transaction_created', { seed: 4, variant: 'b' }));
    if (created.kind !== 'transaction') throw new Error('expected a transaction');
    expect(created.transaction.status).toBe('pending');
    expect(created.transaction.payer).toBeUndefined();
    expect(created.transaction.refund).toBeUndefined();
  });

  it('uses the given timestamp and rejects an invalid one', () => {
    const payload = transactionPaid({ timestamp: '2025-12-31T23:59:00Z' });
    expect(payload['timestamp']).toBe('2025-12-31T23:59:00.000Z');
    expect(() => transactionPaid({ timestamp: 'yesterday' })).toThrow(PixhookConfigError);
  });
});

describe('documents and endToEndId', () => {
  it('accepts known-valid documents and rejects a changed digit or repeated digits', () => {
    expect(isValidCpf('52998224725')).toBe(true);
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('11111111111')).toBe(false);
    expect(isValidCnpj('11444777000161')).toBe(true);
    expect(isValidCnpj('11444777000162')).toBe(false);
    expect(isValidCnpj('00000000000000')).toBe(false);
  });

  it('stamps the endToEndId with the ISPB and the UTC minute', () => {
    const id = generateEndToEndId({ ispb: '18236120', at: new Date('2026-02-03T04:05:59Z'), random: seededRandom(1) });
    expect(id.slice(0, 21)).toBe('E18236120202602030405');
    expect(id).toHaveLength(32);
  });
});
