import { describe, expect, it } from 'vitest';
import { normalizeEvent, type NormalizeResult } from '../../src/events/normalize-event.js';
import type { PixEvent, TransactionEvent, TransferEvent } from '../../src/events/event-types.js';
import { buildPayload } from '../../src/testing/index.js';
import { samplePaidA, samplePaidB, sampleCreatedB, sampleTransferA, sampleTransferCompletedB } from './published-samples.js';

function ok(value: unknown, options?: Parameters<typeof normalizeEvent>[1]): PixEvent {
  const result = normalizeEvent(value, options);
  if (!result.ok) throw new Error(result.message);
  if (result.event.kind === 'unknown') throw new Error(`unknown: ${result.event.name}`);
  return result.event;
}
const tx = (value: unknown) => ok(value) as TransactionEvent;
const tr = (value: unknown) => ok(value) as TransferEvent;
function invalid(value: unknown): Extract<NormalizeResult, { ok: false }> {
  const result = normalizeEvent(value);
  if (result.ok) throw new Error(`expected invalid, got ${JSON.stringify(result.event)}`);
  return result;
}
const clone = <T>(v: T): T => structuredClone(v);

describe('published samples', () => {
  it('the documented transfer_completed with creditorAccount null, fees null and pixKey null is read, without warnings', () => {
    const e = tr(sampleTransferCompletedB);
    expect(e.transfer).toEqual({
      id: 'tr_b_0001',
      status: 'completed',
      amountInCents: 7000,
      endToEndId: 'E87654321202611221205zyxwvutsrqp',
    });
    expect(e.warnings).toEqual([]);
    expect(e.payload).toBe(sampleTransferCompletedB);
    expect(e.raw).toBe(sampleTransferCompletedB);
  });

  it('a 1-cent charge with a 50-cent fee nets -49, and null pix, payerInfo and refund read as absent', () => {
    const e = tx(samplePaidA);
    expect(e.transaction).toEqual({
      id: 'tx_a_0001',
      status: 'paid',
      amountInCents: 1,
      netAmountInCents: -49,
      feesInCents: 50,
      customer: {
        name: 'Maria da Silva',
        email: 'maria@example.com.br',
        document: '12345678909',
        documentType: 'cpf',
        phone: '+5511999990000',
      },
      endToEndId: 'E12345678202611221200abcdefghijk',
    });
    expect(e.warnings).toEqual([]);
  });

  it('sibling brands’ B transactions: netAmount, fees and customer are mapped next to the payer', () => {
    const e = tx(samplePaidB);
    expect(e.transaction).toEqual({
      id: 'tx_b_0001',
      status: 'paid',
      amountInCents: 2500,
      netAmountInCents: 2475,
      feesInCents: 25,
      customer: { name: 'João Pereira', email: 'joao@example.com.br', document: '98765432100' },
      endToEndId: 'E12345678202611221200abcdefghijk',
      payer: {
        name: 'João Pereira',
        document: '98765432100',
        bank: 'Banco Exemplo',
        branch: '0001',
        accountType: 'CHECKING',
        accountNumber: '123456-7',
      },
    });
    expect(e).toMatchObject({ variant: 'b', scope: 'postback', deliveryId: 'tx_b_0001', warnings: [] });
  });

  it('a B transaction whose every secondary field is null reads as its essentials only', () => {
    const e = tx(sampleCreatedB);
    expect(e.transaction).toEqual({ id: 'tx_b_0002', status: 'pending', amountInCents: 990 });
    expect(e.warnings).toEqual([]);
  });

  it('A transfers: amount, netAmount, fees, pixKey, endToEndId and creditorAccount', () => {
    expect(tr(sampleTransferA).transfer).toEqual({
      id: 'tr_a_0001',
      status: 'completed',
      amountInCents: 5000,
      netAmountInCents: 4950,
      feesInCents: 50,
      pixKey: 'loja@example.com',
      endToEndId: 'E87654321202611221205zyxwvutsrqp',
      creditorAccount: { ispb: '87654321', branch: '0001', accountNumber: '99999-1', name: 'Loja Ltda' },
    });
  });

  it('B transfers with every field: fees, netAmount, pixKey, pix.endToEndId and pix.creditorAccount', () => {
    const e = tr({
      ...sampleTransferCompletedB,
      transfer: {
        ...sampleTransferCompletedB.transfer,
        fees: 70,
        netAmount: 6930,
        pixKey: '12345678000190',
        pix: { endToEndId: 'E1', creditorAccount: { ispb: '1' } },
      },
    });
    expect(e.transfer).toEqual({
      id: 'tr_b_0001',
      status: 'completed',
      amountInCents: 7000,
      netAmountInCents: 6930,
      feesInCents: 70,
      pixKey: '12345678000190',
      endToEndId: 'E1',
      creditorAccount: { ispb: '1' },
    });
  });

  for (const [field, where] of [
    ['pix', 'transaction'],
    ['customer', 'transaction'],
    ['refund', 'transaction'],
    ['fees', 'transaction'],
    ['netAmount', 'transaction'],
  ] as const) {
    it(`B transaction.${field}: null reads as absent, no warning`, () => {
      const payload = clone(samplePaidB) as { transaction: Record<string, unknown> };
      payload[where][field] = null;
      const e = tx(payload);
      expect(e.warnings).toEqual([]);
      expect(e.transaction.amountInCents).toBe(2500);
    });
  }

  for (const field of ['endToEndId', 'payerInfo']) {
    it(`B transaction.pix.${field}: null reads as absent, no warning`, () => {
      const payload = clone(samplePaidB);
      (payload.transaction.pix as Record<string, unknown>)[field] = null;
      const e = tx(payload);
      expect(e.warnings).toEqual([]);
      expect(e.transaction).not.toHaveProperty(field === 'payerInfo' ? 'payer' : 'endToEndId');
    });
  }

  it('null top-level fields (id, scope, timestamp, type) read as absent', () => {
    const e = tx({ ...samplePaidB, id: null, scope: null, type: null, timestamp: null });
    expect(e).not.toHaveProperty('deliveryId');
    expect(e).not.toHaveProperty('scope');
    expect(e.variant).toBe('short');
    expect(e.warnings).toEqual([]);
  });
});

describe('lenient secondary fields', () => {
  it('a string where cents were expected is left out and reported, and stays in the payload', () => {
    const payload = { ...samplePaidA, data: { ...samplePaidA.data, netAmountInCents: '4950', fees: 0.5 } };
    const e = tx(payload);
    expect(e.transaction).not.toHaveProperty('netAmountInCents');
    expect(e.transaction).not.toHaveProperty('feesInCents');
    expect(e.warnings).toEqual([
      { path: 'data.netAmountInCents', found: 'string', message: 'expected integer cents' },
      { path: 'data.fees', found: 'number (fraction)', message: 'expected integer cents' },
    ]);
    expect((e.payload as typeof payload).data.netAmountInCents).toBe('4950');
  });

  it('a number where a string was expected is left out and reported by type, never by value', () => {
    const payload = clone(samplePaidB) as unknown as {
      transaction: { customer: Record<string, unknown>; pix: { endToEndId: unknown; payerInfo: Record<string, unknown> } };
    };
    payload.transaction.customer['document'] = 98765432100;
    payload.transaction.pix.payerInfo['branch'] = 1;
    payload.transaction.pix.endToEndId = 12345;
    const e = tx(payload);
    expect(e.transaction.customer).toEqual({ name: 'João Pereira', email: 'joao@example.com.br' });
    expect(e.transaction.payer).not.toHaveProperty('branch');
    expect(e.transaction).not.toHaveProperty('endToEndId');
    expect(e.warnings.map((w) => [w.path, w.found])).toEqual([
      ['transaction.customer.document', 'number'],
      ['transaction.pix.endToEndId', 'number'],
      ['transaction.pix.payerInfo.branch', 'number'],
    ]);
    expect(JSON.stringify(e.warnings)).not.toContain('98765432100');
  });

  it('an object field of the wrong type is reported once, at the object', () => {
    const e = tx({ ...samplePaidB, transaction: { ...samplePaidB.transaction, pix: 'E123', customer: ['x'], refund: 5 } });
    expect(e.warnings.map((w) => [w.path, w.found])).toEqual([
      ['transaction.customer', 'array'],
      ['transaction.pix', 'string'],
      ['transaction.refund', 'number'],
    ]);
    expect(e.transaction).toEqual({ id: 'tx_b_0001', status: 'paid', amountInCents: 2500, netAmountInCents: 2475, feesInCents: 25 });
  });

  it('top level: a numeric delivery id becomes a string; a wrong scope, timestamp or type is reported', () => {
    const e = tx({ ...samplePaidB, id: 123, scope: 7, timestamp: false, type: 'transfer' });
    expect(e.deliveryId).toBe('123');
    expect(e.variant).toBe('b');
    expect(e.warnings.map((w) => [w.path, w.found])).toEqual([
      ['scope', 'number'],
      ['timestamp', 'boolean'],
      ['type', 'string'],
    ]);
  });

  it('unknown extra fields anywhere never fail and never warn', () => {
    const payload = {
      ...samplePaidB,
      brand: 'vexy',
      metadata: { order: 1 },
      transaction: {
        ...samplePaidB.transaction,
        installments: [1, 2],
        pix: { ...samplePaidB.transaction.pix, qrCode: null, extra: { a: 1 } },
      },
    };
    const e = tx(payload);
    expect(e.warnings).toEqual([]);
    expect(e.payload).toBe(payload);
  });

  it('a transfer’s creditorAccount of the wrong type is reported; a flat endToEndId is used when pix has none', () => {
    const e = tr({
      ...sampleTransferCompletedB,
      transfer: { ...sampleTransferCompletedB.transfer, endToEndId: 'E-flat', pix: { endToEndId: null, creditorAccount: 'acc' } },
    });
    expect(e.transfer.endToEndId).toBe('E-flat');
    expect(e.warnings).toEqual([{ path: 'transfer.pix.creditorAccount', found: 'string', message: 'expected an object' }]);
  });

  it('refunds in either spelling, and a negative refund amount kept as stated', () => {
    const b = tx({
      ...samplePaidB,
      event: 'transaction_refunded',
      transaction: {
        ...samplePaidB.transaction,
        status: 'refunded',
        refund: { amount: 500, reason: 'customer', refundedAt: '2026-11-22T13:00:00Z' },
      },
    });
    expect(b.transaction.refund).toEqual({ amountInCents: 500, reason: 'customer', refundedAt: '2026-11-22T13:00:00Z' });
    const a = tx({
      ...samplePaidA,
      event: 'transaction_refunded',
      data: { ...samplePaidA.data, refund: { amountInCents: -1, reason: null, refundedAt: 1 } },
    });
    expect(a.transaction.refund).toEqual({ amountInCents: -1 });
    expect(a.warnings).toEqual([{ path: 'data.refund.refundedAt', found: 'number', message: 'expected a string' }]);
  });

  it('MED disputes: transaction.infraction (or med, or at the root) with id, status, reason, amount and openedAt', () => {
    const base = { ...samplePaidB, event: 'transaction_infraction' };
    const a = tx({
      ...base,
      transaction: {
        ...samplePaidB.transaction,
        infraction: { id: 'med_1', status: 'open', reason: 'fraud', amount: 2500, createdAt: '2026-11-23T10:00:00Z' },
      },
    });
    expect(a.transaction.status).toBe('paid');
    expect(a.transaction.infraction).toEqual({
      id: 'med_1',
      status: 'open',
      reason: 'fraud',
      amountInCents: 2500,
      openedAt: '2026-11-23T10:00:00Z',
    });
    const b = tx({
      ...base,
      transaction: { ...samplePaidB.transaction, med: { id: 77, type: 'RETURN_REQUEST', openedAt: '2026-11-23T11:00:00Z' } },
    });
    expect(b.transaction.infraction).toEqual({ id: '77', reason: 'RETURN_REQUEST', openedAt: '2026-11-23T11:00:00Z' });
    const c = tx({ ...base, infraction: { id: 'med_root', status: null, amount: 'x' } });
    expect(c.transaction.infraction).toEqual({ id: 'med_root' });
    expect(c.warnings).toEqual([{ path: 'infraction.amount', found: 'string', message: 'expected integer cents' }]);
  });

  it('A transactions may carry payment details flat or under pix', () => {
    const e = tx({
      ...samplePaidA,
      data: { ...samplePaidA.data, endToEndId: null, pix: { endToEndId: 'E-nested' }, payerInfo: { name: 'Ana', accountType: 'SAVINGS' } },
    });
    expect(e.transaction.endToEndId).toBe('E-nested');
    expect(e.transaction.payer).toEqual({ name: 'Ana', accountType: 'SAVINGS' });
  });
});

describe('strict essentials', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['no event name', { data: samplePaidA.data }, 'event', /^event: expected the event name as a non-empty string, found absent$/],
    ['an empty event name', { ...samplePaidA, event: '' }, 'event', /found string \(empty\)/],
    ['no resource', { event: 'transaction_paid', id: 'x' }, 'transaction', /^transaction: expected the transaction object/],
    ['a null resource', { ...samplePaidB, transaction: null }, 'transaction', /found null$/],
    ['an empty id', { ...samplePaidB, transaction: { ...samplePaidB.transaction, id: '' } }, 'transaction.id', /found string \(empty\)$/],
    ['an object id', { ...samplePaidB, transaction: { ...samplePaidB.transaction, id: { v: 1 } } }, 'transaction.id', /found object$/],
    [
      'a fractional id',
      { ...samplePaidB, transaction: { ...samplePaidB.transaction, id: 1.5 } },
      'transaction.id',
      /found number \(fraction\)$/,
    ],
    ['a null status', { ...samplePaidB, transaction: { ...samplePaidB.transaction, status: null } }, 'transaction.status', /found null$/],
    [
      'a numeric status',
      { ...samplePaidA, data: { ...samplePaidA.data, status: 2 } },
      'data.status',
      /expected the status as a string, found number$/,
    ],
    [
      'a string amount',
      { ...samplePaidB, transaction: { ...samplePaidB.transaction, amount: '2500' } },
      'transaction.amount',
      /found string$/,
    ],
    [
      'a negative amount',
      { ...samplePaidA, data: { ...samplePaidA.data, amountInCents: -1 } },
      'data.amountInCents',
      /found number \(negative\)$/,
    ],
    ['an unsafe amount', { ...samplePaidA, data: { ...samplePaidA.data, amountInCents: 2 ** 53 } }, 'data.amountInCents', /unsafe integer/],
    ['a fractional amount', { ...samplePaidA, data: { ...samplePaidA.data, amountInCents: 25.5 } }, 'data.amountInCents', /fraction/],
    [
      'a missing amount',
      { ...sampleTransferA, data: { ...sampleTransferA.data, amount: null } },
      'data.amountInCents',
      /expected amountInCents or amount as non-negative integer cents, found null$/,
    ],
  ];
  for (const [what, payload, path, message] of cases) {
    it(`${what} is refused at ${path}, the value never echoed`, () => {
      const result = invalid(payload);
      expect(result.path).toBe(path);
      expect(result.message).toMatch(message);
      expect(result.message.startsWith(`${path}: `)).toBe(true);
      expect(result.message).not.toContain('2500"');
    });
  }

  it('a non-object body is refused at the root', () => {
    expect(invalid([1])).toEqual({ ok: false, path: '', message: '(root): expected a JSON object, found array' });
  });

  it('a safe integer id becomes a string; A accepts amount when amountInCents is absent or null; B accepts amountInCents', () => {
    expect(tx({ ...samplePaidB, transaction: { ...samplePaidB.transaction, id: 42 } }).transaction.id).toBe('42');
    expect(tx({ ...samplePaidA, data: { ...samplePaidA.data, amountInCents: null, amount: 300 } }).transaction.amountInCents).toBe(300);
    const b = { ...samplePaidB, transaction: { ...samplePaidB.transaction, amount: undefined, amountInCents: 700 } };
    expect(tx(b).transaction.amountInCents).toBe(700);
  });

  it('an empty status string is still a string (unknown statuses pass through, trimmed and case-folded)', () => {
    const updated = { ...samplePaidB, event: 'transaction_updated', transaction: { ...samplePaidB.transaction, status: '' } };
    expect(tx(updated).transaction.status).toBe('');
    // A transaction_paid is judged as a payment whatever its status says.
    expect(tx({ ...samplePaidB, transaction: { ...samplePaidB.transaction, status: '' } }).transaction.status).toBe('paid');
  });
});

describe('source', () => {
  it('is webhook by default, or what the caller says, on known and unknown events alike', () => {
    expect(ok(samplePaidA).source).toBe('webhook');
    expect(ok(samplePaidA, { source: 'replay' }).source).toBe('replay');
    expect(ok(sampleTransferA, { source: 'reconcile' }).source).toBe('reconcile');
    const unknown = normalizeEvent({ event: 'transaction_chargeback', id: 9 }, { source: 'replay' });
    expect(unknown).toEqual({
      ok: true,
      event: {
        kind: 'unknown',
        name: 'transaction_chargeback',
        source: 'replay',
        provider: 'gateway',
        deliveryId: '9',
        payload: { event: 'transaction_chargeback', id: 9 },
        raw: { event: 'transaction_chargeback', id: 9 },
      },
    });
  });
});

describe('the test kit emits the new fields', () => {
  it('B transactions carry netAmount, fees and customer when given; A carries fees and endToEndId when given', () => {
    const customer = { name: 'Ana', email: 'ana@example.com', document: '12345678909', phone: '+5511988887777' };
    const b = tx(
      buildPayload('transaction_paid', { variant: 'b', seed: 1, amountInCents: 1, netAmountInCents: -49, feesInCents: 50, customer }),
    );
    expect(b.transaction).toMatchObject({ amountInCents: 1, netAmountInCents: -49, feesInCents: 50, customer });
    const a = tx(buildPayload('transaction_paid', { variant: 'a', seed: 1, feesInCents: 50, endToEndId: 'E1' }));
    expect(a.transaction).toMatchObject({ feesInCents: 50, endToEndId: 'E1' });
    expect(b.warnings).toEqual([]);
    // Without those options the B payload stays as before.
    expect(buildPayload('transaction_paid', { variant: 'b', seed: 1 }).transaction).not.toHaveProperty('customer');
  });

  it('transaction_infraction carries one dispute, alike in A and B, with an id that differs by seed', () => {
    const a = tx(buildPayload('transaction_infraction', { variant: 'a', seed: 2 }));
    const b = tx(buildPayload('transaction_infraction', { variant: 'b', seed: 2 }));
    expect(a.transaction.infraction).toEqual(b.transaction.infraction);
    expect(a.transaction.infraction).toMatchObject({
      id: expect.stringMatching(/^med_/),
      status: 'open',
      amountInCents: a.transaction.amountInCents,
    });
    expect(tx(buildPayload('transaction_infraction', { variant: 'b', seed: 3 })).transaction.infraction?.id).not.toBe(
      b.transaction.infraction?.id,
    );
    const given = tx(buildPayload('transaction_paid', { variant: 'b', seed: 2, infraction: { id: 'med_x', reason: 'scam' } }));
    expect(given.transaction.infraction).toEqual({ id: 'med_x', reason: 'scam' });
  });
});
