import { describe, expect, it } from 'vitest';
import { createReceiver, type AckMode, type QueuedEvent, type Receiver } from '../../src/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// A claim held by a live run of this process must not lapse by the clock: when the event loop stalls past
// claimTtlMs (a loaded machine, a handler that blocks), the keeper's renewal fires late, and a retry that
// arrives first must still be answered in_flight, never run the event a second time (seen in the chaos run).
const secret = 'whsec_stall';
const ttlMs = 100;

function delivery(id: string) {
  const body = bytesOf({ event: 'transaction_paid', data: { id, status: 'paid', amountInCents: 990 } });
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

/** Blocks the event loop (no timer, no renewal can run) well past the claim's TTL. */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

function receiverFor(mode: AckMode, jobs: QueuedEvent[], onEnqueue: () => void = () => undefined): Receiver {
  const options = { secret, claimTtlMs: ttlMs, handlerTimeoutMs: 5_000 };
  if (mode === 'durable') {
    // The enqueue outlives the stall: the claim is held while the job is written.
    return createReceiver({
      ...options,
      mode,
      queue: {
        enqueue: async (job) => {
          onEnqueue();
          await new Promise((resolve) => setTimeout(resolve, 20));
          jobs.push(job);
        },
      },
    });
  }
  return mode === 'background'
    ? createReceiver({ ...options, mode, background: { concurrency: 4 } })
    : createReceiver({ ...options, mode, deadlineMs: 5_000 });
}

describe('a claim held by a live run outlives an event-loop stall past its TTL', () => {
  it.each<AckMode>(['inline', 'background', 'durable'])('%s: the retry during the stall is not run again', async (mode) => {
    const jobs: QueuedEvent[] = [];
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const receiver = receiverFor(mode, jobs, started);
    const runs = new Map<string, number>();
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    receiver.on('transaction_paid', async (event) => {
      const id = event.transaction.id;
      runs.set(id, (runs.get(id) ?? 0) + 1);
      started();
      if (id === 'tx_slow') await slow;
    });

    const first = receiver.receive(delivery('tx_slow'));
    // The run has started (in durable mode, the enqueue has begun): its claim is held.
    await running;
    stall(ttlMs * 3);
    // The first thing the loop does after the stall: the sender's retry, before any renewal can run.
    const retry = await receiver.receive(delivery('tx_slow'));
    release();
    await first;
    expect(await receiver.drain({ timeoutMs: 5_000 })).toBe(true);

    if (mode === 'durable') {
      // Queued once: the retry is not a second job.
      expect(jobs.map((job) => job.key)).toHaveLength(1);
    } else {
      expect(runs.get('tx_slow')).toBe(1);
      expect(retry.status).not.toBe(200);
    }
  });

  it('a renewal that fires after the stall does not declare the live run lost (it would fail, and its retry run it again)', async () => {
    const receiver = receiverFor('inline', []);
    const failures: unknown[] = [];
    let runs = 0;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    receiver
      .on('transaction_paid', async () => {
        runs++;
        started();
        await slow;
      })
      .onError((failure) => void failures.push(failure.error));

    const first = receiver.receive(delivery('tx_slow'));
    await running;
    stall(ttlMs * 3);
    // The keeper's late renewals run now (every ttlMs / 4), before the handler finishes.
    await new Promise((resolve) => setTimeout(resolve, ttlMs));
    release();
    expect((await first).status).toBe(200);
    expect(failures).toEqual([]);
    expect((await receiver.receive(delivery('tx_slow'))).status).toBe(200); // a duplicate, answered 200
    expect(runs).toBe(1);
  });
});
