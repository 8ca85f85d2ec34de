import { describe, expect, it } from 'vitest';
import { createReceiver, type PixRefund } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Two partial refunds of one charge, the same amount, no refundedAt: each carries its own refund id and
// each must reach the handler. Before, the second was answered 200 `duplicate` and never handled.
const secret = 'whsec_refund_identity';

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'X-Signature': signBytes(body, secret) }, body };
}

const shapes: Record<string, (refund: Record<string, unknown>) => unknown> = {
  'Variant A': (refund) => ({
    event: 'transaction_refunded',
    timestamp: '2026-11-23T10:00:00.000Z',
    data: { id: 'tx_partial', status: 'refunded', amountInCents: 3000, refund: { amountInCents: refund['amount'], ...refund } },
  }),
  'Variant B': (refund) =>
    buildPayload('transaction_refunded', {
      variant: 'b',
      id: 'tx_partial',
      amountInCents: 3000,
      refund: { amountInCents: refund['amount'] as number, ...(refund as PixRefund) },
    }),
  'the short form': (refund) => ({
    id: 'tx_partial',
    type: 'transaction',
    event: 'transaction_refunded',
    transaction: { id: 'tx_partial', amount: 3000, status: 'refunded', refund },
  }),
};

describe('two partial refunds with the same amount through createReceiver().receive()', () => {
  for (const [shape, build] of Object.entries(shapes)) {
    it(`${shape}: each refund id is handled once; a retry of either is a duplicate`, async () => {
      const handled: (string | undefined)[] = [];
      const receiver = createReceiver({ secret }).on('transaction_refunded', (event) => void handled.push(event.transaction.refund?.id));
      const first = build({ id: 'rf_1', amount: 1000, reason: 'partial' });
      const second = build({ id: 'rf_2', amount: 1000, reason: 'partial' });
      expect((await receiver.receive(delivery(first))).reason).toBeUndefined();
      const secondAnswer = await receiver.receive(delivery(second));
      expect(secondAnswer.status).toBe(200);
      expect(secondAnswer.reason).toBeUndefined();
      expect(secondAnswer.key).toBe('transaction_refunded:tx_partial:refunded:3000:ra=1000:ri=rf_2');
      const retry = await receiver.receive(delivery(second));
      expect(retry.reason).toBe('duplicate');
      expect(handled).toEqual(['rf_1', 'rf_2']);
    });
  }

  it('without ids, two refunds with different reasons are both handled', async () => {
    const handled: (string | undefined)[] = [];
    const receiver = createReceiver({ secret }).on('transaction_refunded', (event) => void handled.push(event.transaction.refund?.reason));
    const build = shapes['the short form'] as (refund: Record<string, unknown>) => unknown;
    expect((await receiver.receive(delivery(build({ amount: 1000, reason: 'item 1' })))).reason).toBeUndefined();
    expect((await receiver.receive(delivery(build({ amount: 1000, reason: 'item 2' })))).reason).toBeUndefined();
    expect(handled).toEqual(['item 1', 'item 2']);
  });
});
