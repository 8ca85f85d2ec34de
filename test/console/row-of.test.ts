import { describe, expect, it } from 'vitest';
import { rowOf } from '../../src/console/client/row-of.js';

// Issue 37: a refund's API Pix call repeats its Pix (a duplicate of the payment): its row is the refund's.
describe('rowOf: the event a deliveries row stands for', () => {
  it('an API Pix call with a refund: the refund’s key and event, not the repeated Pix’s', () => {
    const entry = {
      id: 'j1',
      key: 'pix_received:E1',
      event: 'pix_received',
      items: [
        { event: 'pix_received', key: 'pix_received:E1' },
        { event: 'pix_refund_updated', key: 'pix_refund_updated:E1:D1:returned' },
      ],
    };
    expect(rowOf(entry)).toEqual({ key: 'pix_refund_updated:E1:D1:returned', event: 'pix_refund_updated' });
  });

  it('a Pix alone, a gateway event, and an entry without a key keep their own', () => {
    expect(
      rowOf({ id: 'j2', key: 'pix_received:E2', event: 'pix_received', items: [{ event: 'pix_received', key: 'pix_received:E2' }] }),
    ).toEqual({
      key: 'pix_received:E2',
      event: 'pix_received',
    });
    expect(rowOf({ id: 'j3', key: 'transaction_refunded:txn_1:refunded:100', event: 'transaction_refunded' })).toEqual({
      key: 'transaction_refunded:txn_1:refunded:100',
      event: 'transaction_refunded',
    });
    expect(rowOf({ id: 'j4' })).toEqual({ key: 'entry:j4', event: undefined });
  });
});
