import { createServer } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createReceiver, memoryDedupeStore, memoryPaymentBook } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_book_http';

function signed(payload: unknown) {
  const bytes = bytesOf(payload);
  return { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signBytes(bytes, secret) }, body: bytes };
}

describe('the payment book over real HTTP (node:http adapter)', () => {
  it('held → 200 held, retry and the other channel 200 held, release once, then duplicate; two instances share book and store', async () => {
    const book = memoryPaymentBook();
    const store = memoryDedupeStore();
    const paid = vi.fn();
    const make = () => createReceiver({ secret, book, store }).on('transaction_paid', paid);
    const [a, b] = [make(), make()];
    const targets = await Promise.all([a, b].map((receiver) => serverTarget(createServer(createNodeHandler(receiver)), '/webhooks/pix')));
    try {
      await book.expect({ id: 'h1', amountInCents: 1000 });
      const base = { variant: 'b', seed: 3, id: 'h1', amountInCents: 999, endToEndId: 'E12345678202605011200hhhhhhhhhhh' } as const;
      const viaPostback = signed(buildPayload('transaction_paid', { ...base, scope: 'postback' }));
      const viaUser = signed(buildPayload('transaction_paid', { ...base, scope: 'user', deliveryId: 'dlv_user' }));

      const first = await targets[0]!.send(viaPostback);
      expect([first.status, JSON.parse(first.body)]).toEqual([200, { ok: true, reason: 'held' }]);
      for (const [target, request] of [
        [targets[0]!, viaPostback],
        [targets[1]!, viaPostback],
        [targets[1]!, viaUser],
      ] as const) {
        const res = await target.send(request);
        expect([res.status, JSON.parse(res.body)]).toEqual([200, { ok: true, reason: 'held' }]);
      }
      const held = await book.held();
      expect(held).toHaveLength(1);
      expect(paid).not.toHaveBeenCalled();

      const results = await Promise.all([a.release(held[0]!.heldId), b.release(held[0]!.heldId)]);
      expect(results.map((result) => result.ok).sort()).toEqual([false, true]);
      expect(paid).toHaveBeenCalledTimes(1);

      for (const target of targets) {
        const res = await target.send(viaUser);
        expect([res.status, JSON.parse(res.body)]).toEqual([200, { ok: true, reason: 'duplicate' }]);
      }
      const channels = (await book.get('h1'))!.timeline.map((entry) => `${entry.outcome}/${entry.channel}`);
      expect(channels).toEqual([
        'held/postback',
        'duplicate_hold/postback',
        'duplicate_hold/postback',
        'duplicate_hold/user',
        'released/postback',
      ]);
    } finally {
      await Promise.all(targets.map((target) => target.close()));
    }
  });
});
