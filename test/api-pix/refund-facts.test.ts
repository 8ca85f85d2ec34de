import { describe, it } from 'vitest';
import { memoryDedupeStore, memoryPaymentBook } from '../../src/index.js';
import { refundFactsOverHttp } from './refund-facts-scenario.js';

describe('every devolução and refund read right, over real HTTP', () => {
  it('without a book: each status runs, each Pix’s refund "1" runs', async () => {
    await refundFactsOverHttp(undefined);
  });

  it('with a memory book: the same runs; a refunded wrong amount is never released', async () => {
    await refundFactsOverHttp(memoryPaymentBook(), memoryDedupeStore(), 37);
  });
});
