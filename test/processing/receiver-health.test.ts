import { describe, expect, it } from 'vitest';
import { createProcessing, createReceiver, memoryJournal, memoryPaymentBook, type DedupeStore } from '../../src/index.js';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { memoryDedupeStore } from '../../src/dedupe/memory-dedupe-store.js';

// receiver.health(): one check per backend present, each a real call to it; a failing one says why, never a secret.
describe('receiver.health()', () => {
  it('checks the store alone by default, and the book and journal when present', async () => {
    expect(await createReceiver({ secret: 'whsec_health' }).health()).toEqual({ ok: true, checks: { store: { ok: true } } });
    const full = createReceiver({ secret: 'whsec_health', book: memoryPaymentBook(), journal: memoryJournal() });
    expect(await full.health()).toEqual({ ok: true, checks: { store: { ok: true }, book: { ok: true }, journal: { ok: true } } });
  });

  it('gives back the key it claims: the store holds nothing after a check', async () => {
    const claims: string[] = [];
    const releases: string[] = [];
    const inner = memoryDedupeStore();
    const store: DedupeStore = {
      claim: (key, owner, ttl) => (claims.push(key), inner.claim(key, owner, ttl)),
      complete: (key, owner, ttl) => inner.complete(key, owner, ttl),
      release: (key, owner) => (releases.push(key), inner.release(key, owner)),
      extend: (key, owner, ttl) => inner.extend(key, owner, ttl),
    };
    await createReceiver({ secret: 'whsec_health', store }).health();
    expect(claims).toHaveLength(1);
    expect(releases).toEqual(claims);
  });

  it('reports a failing store, book and journal with ok false and a detail without the secret in their errors', async () => {
    const failing = (): never => {
      throw new Error('connect ECONNREFUSED redis://pix:hunter2@127.0.0.1:6390 token=abc123 whsec_leaked');
    };
    const store: DedupeStore = { claim: failing, complete: failing, release: failing, extend: failing };
    const book = memoryPaymentBook();
    book.get = () => Promise.reject(new Error('password=hunter2 refused'));
    const journal = memoryJournal();
    journal.list = () => new Promise(() => {}); // hangs: bounded by storeTimeoutMs
    const receiver = createReceiver({ secret: 'whsec_health', store, book, journal, storeTimeoutMs: 200 });
    const health = await receiver.health();
    expect(health.ok).toBe(false);
    expect(health.checks.store).toMatchObject({ ok: false, detail: expect.stringContaining('ECONNREFUSED') });
    expect(health.checks.book).toMatchObject({ ok: false, detail: expect.stringContaining('refused') });
    expect(health.checks.journal).toMatchObject({ ok: false, detail: expect.stringContaining('200 ms') });
    expect(JSON.stringify(health)).not.toMatch(/hunter2|abc123|whsec_leaked/);
  });

  it('checks a durable queue by counting its jobs, and a queue that cannot count is taken as it is', async () => {
    let counted = 0;
    const counting = { enqueue: () => Promise.resolve(), counts: () => (counted++, Promise.resolve({})) };
    const processing = createProcessing({ mode: 'durable', queue: counting });
    const receiver = createReceiver({ secret: 'whsec_health', processing });
    expect(await receiver.health()).toEqual({ ok: true, checks: { store: { ok: true }, queue: { ok: true } } });
    expect(counted).toBe(1);
    const down = { enqueue: () => Promise.resolve(), counts: () => Promise.reject(new Error('queue gone')) };
    const broken = createReceiver({ secret: 'whsec_health', processing: createProcessing({ mode: 'durable', queue: down }) });
    expect(await broken.health()).toEqual({
      ok: false,
      checks: { store: { ok: true }, queue: { ok: false, detail: 'Error: queue gone' } },
    });
    const plain = createProcessing({ mode: 'durable', queue: { enqueue: () => Promise.resolve() } });
    expect((await createReceiver({ secret: 'whsec_health', processing: plain }).health()).ok).toBe(true);
  });

  it('on the API Pix receiver too (the same Receiver type)', async () => {
    const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: 'a-long-url-secret-0123456789' } }, book: memoryPaymentBook() });
    expect(await receiver.health()).toEqual({ ok: true, checks: { store: { ok: true }, book: { ok: true } } });
  });

  it('a processing that is not createProcessing has nothing to check', async () => {
    const made = createProcessing();
    const foreign = { ...made, mode: made.mode } as typeof made;
    delete (foreign as Partial<{ acceptDelivery: unknown }>).acceptDelivery;
    expect(await createReceiver({ secret: 'whsec_health', processing: foreign }).health()).toEqual({ ok: true, checks: {} });
  });
});
