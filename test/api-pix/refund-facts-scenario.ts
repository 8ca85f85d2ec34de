// Issue 36 §3 over real HTTP (node:http adapter), run without a book and on every payment book: each status of a
// devolução is its own fact and runs its handler, with a book as without one; a refund is its own Pix's (two Pix on
// one txid each have a refund "1"); a Pix held for a wrong amount whose money a MED_FRAUDE devolução returned is
// never released.
import { createServer } from 'node:http';
import { expect } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import type { PaymentBook } from '../../src/book/payment-book.js';
import type { DedupeStore } from '../../src/index.js';
import { apiPixBody, apiPixPix, apiPixRefund, seededRandom, type ApiPixPix } from '../../src/testing/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { urlSecret } from './fixtures.js';

export async function refundFactsOverHttp(book: PaymentBook | undefined, store?: DedupeStore, seed = 36): Promise<void> {
  const pixRuns: string[] = [];
  const refundRuns: string[] = [];
  const receiver = createApiPixReceiver({
    auth: { urlSecret: { secret: urlSecret } },
    ...(book !== undefined && { book }),
    ...(store !== undefined && { store }),
  })
    .on('pix_received', (event) => void pixRuns.push(event.pix.endToEndId))
    .on('pix_refund_updated', (event) => void refundRuns.push(`${event.refund.endToEndId}/${event.refund.id}/${event.refund.status}`));
  const target = await serverTarget(createServer(createNodeHandler(receiver)), '/webhooks/bank');
  const send = async (...items: ApiPixPix[]) => {
    const response = await target.send({
      method: 'POST',
      path: `/pix?secret=${urlSecret}`,
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode(apiPixBody(items)),
    });
    return response.status;
  };
  const random = seededRandom(seed);
  try {
    // One Pix, then its devolução "1" processing and not made, then "2" processing and returned: the PSP sends
    // the whole Pix with its devoluções each time.
    const pix = apiPixPix({ amountInCents: 5000, random });
    const e2e = pix.endToEndId;
    const one = apiPixRefund({ id: '1', amountInCents: 1000, status: 'EM_PROCESSAMENTO', random });
    const two = apiPixRefund({ id: '2', amountInCents: 2000, status: 'EM_PROCESSAMENTO', random });
    const oneNotMade = { ...one, status: 'NAO_REALIZADO' as const };
    expect(await send(pix)).toBe(200);
    expect(await send({ ...pix, devolucoes: [one] })).toBe(200);
    expect(await send({ ...pix, devolucoes: [oneNotMade] })).toBe(200);
    expect(await send({ ...pix, devolucoes: [oneNotMade] })).toBe(200);
    expect(await send({ ...pix, devolucoes: [oneNotMade, two] })).toBe(200);
    expect(await send({ ...pix, devolucoes: [oneNotMade, { ...two, status: 'DEVOLVIDO' }] })).toBe(200);
    expect(pixRuns).toEqual([e2e]);
    expect(refundRuns).toEqual([`${e2e}/1/processing`, `${e2e}/1/not_returned`, `${e2e}/2/processing`, `${e2e}/2/returned`]);
    if (book !== undefined) {
      expect((await book.get(pix.txid!))?.status).toBe('refunded');
      expect(await book.held()).toEqual([]);
    }

    // Two Pix on one txid, each with its own refund "1" of R$10,00: both returns run. With a book, the second Pix
    // itself is a second payment on the charge, held.
    const first = apiPixPix({ amountInCents: 3000, random });
    const second = apiPixPix({ amountInCents: 3000, txid: first.txid!, random });
    expect(await send({ ...first, devolucoes: [apiPixRefund({ id: '1', amountInCents: 1000, random })] })).toBe(200);
    expect(await send({ ...second, devolucoes: [apiPixRefund({ id: '1', amountInCents: 1000, random })] })).toBe(200);
    expect(refundRuns.slice(4)).toEqual([`${first.endToEndId}/1/returned`, `${second.endToEndId}/1/returned`]);
    expect(pixRuns.slice(1)).toEqual(book === undefined ? [first.endToEndId, second.endToEndId] : [first.endToEndId]);
    if (book === undefined) return;
    expect((await book.held()).map((held) => held.violations.map((violation) => violation.reason))).toEqual([
      ['stale_status', 'duplicate_payment'],
    ]);

    // 100 cents where the book expected 2 590: held. A MED_FRAUDE devolução then returns the money: the release is
    // refused, the Pix stays held (and can be dismissed), its handler never runs.
    const wrong = apiPixPix({ amountInCents: 100, random });
    await book.expect({ id: wrong.txid!, amountInCents: 2590 });
    expect(await send(wrong)).toBe(200);
    const med = apiPixRefund({ id: 'med1', amountInCents: 100, nature: 'MED_FRAUDE', random });
    expect(await send({ ...wrong, devolucoes: [med] })).toBe(200);
    expect(refundRuns.at(-1)).toBe(`${wrong.endToEndId}/med1/returned`);
    const held = (await book.held()).find((entry) => entry.resourceId === wrong.txid);
    expect(held?.violations.map((violation) => violation.reason)).toEqual(['amount_mismatch']);
    expect(await receiver.release(held!.heldId)).toEqual({ ok: false, reason: 'refunded_since_held' });
    expect(pixRuns).not.toContain(wrong.endToEndId);
    expect(await book.heldEvent(held!.heldId)).toMatchObject({ state: 'held' });
    expect(await book.dismiss(held!.heldId, 'returned under MED')).toEqual({ ok: true });
  } finally {
    await target.close();
    await receiver.close();
  }
}
