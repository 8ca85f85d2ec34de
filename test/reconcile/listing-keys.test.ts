import { describe, expect, it } from 'vitest';
import { createProcessing, memoryPaymentBook, type PixEvent } from '../../src/index.js';
import { createListingReconciler, type ListedPix } from '../../src/reconcile/index.js';

const mine = 'loja@example.com';
const theirs = 'outra-loja@example.com';
const paidAt = new Date(Date.now() - 10 * 60_000).toISOString();

function listed(endToEndId: string, key: string | undefined, amountInCents = 99_900): ListedPix {
  return { endToEndId, txid: `tx${endToEndId}`, amountInCents, ...(key !== undefined && { key }), paidAt, refunds: [] };
}

/** A PSP whose `GET /pix` lists these Pix in every window. */
function client(pix: ListedPix[]) {
  return {
    async *listPix() {
      yield* pix;
    },
  };
}

describe('the listing reconciler applies the receiver’s keys', () => {
  it('with a book: a Pix to another key (or to none) is held as unknown_key, exactly as on the webhook; the merchant’s own runs', async () => {
    const book = memoryPaymentBook();
    const ran: string[] = [];
    const processing = createProcessing({ book }).on('pix_received', (event) => void ran.push(event.pix.endToEndId));
    const reconciler = createListingReconciler({
      client: client([listed('E1', mine, 1000), listed('E2', theirs), listed('E3', undefined)]),
      processing,
      keys: [mine],
      from: Date.now() - 20 * 60_000,
      windowMs: 3_600_000,
    });
    const result = await reconciler.runOnce();
    expect(ran).toEqual(['E1']);
    expect([result.recovered, result.held, result.failed]).toEqual([1, 2, 0]);
    const held = await book.held();
    expect(
      held.map((entry) => [
        (entry.event as PixEvent & { pix: { endToEndId: string } }).pix.endToEndId,
        entry.violations.map((v) => v.reason),
      ]),
    ).toEqual([
      ['E2', ['unknown_key']],
      ['E3', ['unknown_key']],
    ]);
  });

  it('without a book: a Pix to another key never runs; it is reported to onError, and the merchant’s own runs', async () => {
    const ran: string[] = [];
    const errors: string[] = [];
    const processing = createProcessing().on('pix_received', (event) => void ran.push(event.pix.endToEndId));
    const reconciler = createListingReconciler({
      client: client([listed('E1', mine, 1000), listed('E2', theirs)]),
      processing,
      keys: [mine],
      from: Date.now() - 20 * 60_000,
      onError: ({ endToEndId, error }) => void errors.push(`${endToEndId}: ${error.message}`),
    });
    await reconciler.runOnce();
    expect(ran).toEqual(['E1']);
    expect(errors).toEqual([expect.stringMatching(/^E2: .*chave.*unknown_key/)]);
  });

  it('refuses a bad keys option at construction', () => {
    expect(() => createListingReconciler({ client: client([]), processing: createProcessing(), keys: [] })).toThrow(/`keys`/);
  });
});
