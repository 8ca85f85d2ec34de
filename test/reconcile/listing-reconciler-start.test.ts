import { describe, expect, it } from 'vitest';
import { createProcessing } from '../../src/index.js';
import { createListingReconciler, memoryCursorStore, type ListedPix } from '../../src/reconcile/index.js';

// Issue 37: `metrics()` right after `start()` printed `undefined 0` (no cursor saved yet), and with the 60 s settle
// default a first run right after a payment listed nothing without a word. A fake PSP listing, an injected clock.
const now = Date.UTC(2026, 10, 27, 12, 0, 0);

function psp(pix: ListedPix[]) {
  const asked: { from: string; to: string }[] = [];
  return {
    asked,
    client: {
      async *listPix(range: { from: string; to: string }) {
        asked.push(range);
        for (const item of pix) if (item.paidAt >= range.from && item.paidAt < range.to) yield item;
      },
    },
  };
}

function logs() {
  const lines: string[] = [];
  const logger = { info: (_f: object, m?: string) => void lines.push(m ?? ''), warn() {}, error() {} };
  return { lines, logger };
}

describe('the listing reconciler, from its start', () => {
  it('metrics() before any run gives the cursor it will list from and its age, not undefined', async () => {
    const { client } = psp([]);
    const from = now - 3_600_000;
    const reconciler = createListingReconciler({
      client: client as never,
      processing: createProcessing(),
      cursorStore: memoryCursorStore(),
      from,
      now: () => now,
    });
    expect(await reconciler.metrics()).toMatchObject({ cursor: from, lagMs: 3_600_000, runs: 0 });
    const defaulted = createListingReconciler({ client: client as never, processing: createProcessing(), now: () => now });
    expect(await defaulted.metrics()).toMatchObject({ cursor: now - 86_400_000, lagMs: 86_400_000 });
  });

  it('a run that listed nothing because the last settleMs are not listed yet says so', async () => {
    const paidAt = new Date(now - 10_000).toISOString(); // paid 10 s ago: inside the 60 s settle
    const { client, asked } = psp([{ endToEndId: 'E1', txid: 't1', amountInCents: 100, paidAt, refunds: [] } as unknown as ListedPix]);
    const { lines, logger } = logs();
    const reconciler = createListingReconciler({
      client: client as never,
      processing: createProcessing(),
      from: now - 120_000,
      now: () => now,
      logger,
    });
    const result = await reconciler.runOnce();
    expect(result.listed).toBe(0);
    expect(asked.at(-1)!.to).toBe(new Date(now - 60_000).toISOString());
    expect(lines.some((line) => line.includes('a Pix of the last 60 s is listed once it is settleMs old'))).toBe(true);
  });
});
