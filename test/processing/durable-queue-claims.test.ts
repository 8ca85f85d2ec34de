// Issue 36 (bench goal): with a queue whose add is the claim (`claims: true`, as createDurableQueue's), durable intake
// makes no dedupe store call: the queue's answer is the delivery's. A queue without it keeps the store's claim.
import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupeStore, type DedupeStore, type EventQueue, type QueuedEvent } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_durable_claims';

/** A memory store that counts every call made to it. */
function countedStore(): { store: DedupeStore; calls: string[] } {
  const inner = memoryDedupeStore();
  const calls: string[] = [];
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (calls.push(String(name)), (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { store, calls };
}

function receiverOn(queue: EventQueue, store: DedupeStore) {
  const receiver = createReceiver({ secret, mode: 'durable', queue, store });
  const body = bytesOf(buildPayload('transaction_paid', { id: 'txn_claims', amountInCents: 1000 }));
  return () => receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
}

describe('durable intake on a queue that claims', () => {
  it("answers the queue's answer: 200 when queued, duplicate when the key's job is held; no store call", async () => {
    const { store, calls } = countedStore();
    const keys = new Set<string>();
    const jobs: QueuedEvent[] = [];
    const deliver = receiverOn(
      {
        claims: true,
        enqueue: async (job) => {
          if (keys.has(job.key)) return 'duplicate';
          keys.add(job.key);
          jobs.push(job);
        },
      },
      store,
    );
    const first = await deliver();
    expect([first.status, first.reason]).toEqual([200, undefined]);
    const second = await deliver();
    expect([second.status, second.reason]).toEqual([200, 'duplicate']);
    expect(jobs).toHaveLength(1);
    expect(calls.filter((name) => ['claim', 'complete', 'release', 'extend'].includes(name))).toEqual([]);
  });

  it('answers 503 enqueue_failed when the add throws, at once or later, and the retry queues it', async () => {
    const { store } = countedStore();
    let fault: 'sync' | 'async' | undefined = 'sync';
    const jobs: QueuedEvent[] = [];
    const deliver = receiverOn(
      {
        claims: true,
        enqueue(job) {
          if (fault === 'sync') throw new Error('queue down');
          if (fault === 'async') return Promise.reject(new Error('queue down'));
          jobs.push(job);
          return Promise.resolve();
        },
      },
      store,
    );
    expect(await deliver()).toMatchObject({ status: 503, reason: 'enqueue_failed' });
    fault = 'async';
    expect(await deliver()).toMatchObject({ status: 503, reason: 'enqueue_failed' });
    fault = undefined;
    const queued = await deliver();
    expect([queued.status, queued.reason]).toEqual([200, undefined]);
    expect(jobs).toHaveLength(1);
  });

  it('answers 503 enqueue_failed when the add never settles within storeTimeoutMs, and a synchronous answer is taken as given', async () => {
    let mode: 'hang' | 'sync-duplicate' | 'sync-queued' = 'hang';
    const receiver = createReceiver({
      secret,
      mode: 'durable',
      storeTimeoutMs: 100,
      queue: {
        claims: true,
        enqueue: (() => {
          if (mode === 'hang') return new Promise<void>(() => {});
          return mode === 'sync-duplicate' ? 'duplicate' : undefined;
        }) as unknown as EventQueue['enqueue'],
      },
    });
    const body = bytesOf(buildPayload('transaction_paid', { id: 'txn_claims_hang', amountInCents: 1000 }));
    const deliver = () => receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    const hung = await deliver();
    expect([hung.status, hung.reason]).toEqual([503, 'enqueue_failed']);
    mode = 'sync-queued';
    const queued = await deliver();
    expect([queued.status, queued.reason]).toEqual([200, undefined]);
    mode = 'sync-duplicate';
    expect(await deliver()).toMatchObject({ status: 200, reason: 'duplicate' });
  });

  it("a queue without claims keeps the store's claim and its done mark", async () => {
    const { store, calls } = countedStore();
    const deliver = receiverOn({ enqueue: async () => {} }, store);
    const first = await deliver();
    expect([first.status, first.reason]).toEqual([200, undefined]);
    expect(await deliver()).toMatchObject({ status: 200, reason: 'duplicate' });
    expect(calls).toContain('claim');
    expect(calls).toContain('complete');
  });
});
