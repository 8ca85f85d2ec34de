import { describe, expect, it } from 'vitest';
import { createReceiver, type AckMode, type Logger, type QueuedEvent, type Receiver } from '../../src/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { seededRandom } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 11's chaos run: handlers that throw odd values, hang, or outlive their claim's TTL, and a
// logger that throws, across 2 000 deliveries with duplicates, in each mode. Every event answered 200
// is handled exactly once or reported to onError; no event is ever handled twice; nothing crashes.
const secret = 'whsec_chaos';
const unique = 700;
const deliveries = 2_000;

type Behaviour = 'ok' | 'odd' | 'hang' | 'slow' | 'async';

function oddValue(random: () => number): unknown {
  const pick = Math.floor(random() * 4);
  if (pick === 0) return Object.create(null);
  if (pick === 1) return undefined;
  if (pick === 2) {
    const error = new Error('x');
    Object.defineProperty(error, 'message', {
      get: () => {
        throw new Error('getter');
      },
    });
    return error;
  }
  return 42;
}

async function chaos(mode: AckMode) {
  const random = seededRandom(mode.length * 7919);
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => void crashes.push(error);
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtException', onCrash);

  const logger: Logger = {
    info: () => {
      if (random() < 0.3) throw new Error('logger down');
    },
    warn: () => {
      if (random() < 0.3) throw new Error('logger down');
    },
    error: () => {
      if (random() < 0.3) throw Object.create(null);
    },
  };
  const successes = new Map<string, number>();
  const reported = new Set<string>();
  const jobs: QueuedEvent[] = [];
  const options = { secret, logger, claimTtlMs: 400, handlerTimeoutMs: 1_500 };
  const receiver: Receiver =
    mode === 'durable'
      ? createReceiver({ ...options, mode, queue: { enqueue: async (job) => void jobs.push(job) } })
      : mode === 'background'
        ? createReceiver({ ...options, mode, background: { concurrency: 20 }, retry: { attempts: 2, backoff: { delayMs: 5 } } })
        : createReceiver({ ...options, mode, deadlineMs: 300 });
  const behaviours = new Map<Behaviour, number>();
  receiver
    .on('transaction_paid', async (event) => {
      const id = event.transaction.id;
      // Each run draws its fate: most succeed, some fail oddly, hang, or outlive the claim's TTL.
      const roll = random();
      const fate: Behaviour = roll < 0.6 ? 'ok' : roll < 0.72 ? 'odd' : roll < 0.76 ? 'hang' : roll < 0.86 ? 'slow' : 'async';
      behaviours.set(fate, (behaviours.get(fate) ?? 0) + 1);
      if (fate === 'odd') throw oddValue(random);
      if (fate === 'hang') await new Promise(() => {});
      if (fate === 'slow') await new Promise((r) => setTimeout(r, 500 + random() * 400));
      if (fate === 'async') await new Promise((r) => setTimeout(r, random() * 20));
      successes.set(id, (successes.get(id) ?? 0) + 1);
    })
    .onError((failure) => {
      if (failure.event.kind === 'transaction') reported.add(failure.event.transaction.id);
      if (random() < 0.2) throw new Error('onError throws too');
    });

  const ids = Array.from({ length: unique }, (_, i) => `tx_chaos_${mode}_${i}`);
  const schedule = Array.from({ length: deliveries }, (_, i) => ids[i < unique ? i : Math.floor(random() * unique)]!);
  const acknowledged = new Set<string>();
  const statuses = new Map<number, number>();
  // The sender: each delivery is retried (up to 5 attempts) until it gets a 2xx, 50 at a time.
  let next = 0;
  async function sender() {
    while (next < schedule.length) {
      const id = schedule[next++]!;
      const body = bytesOf({ event: 'transaction_paid', data: { id, status: 'paid', amountInCents: 990 } });
      for (let attempt = 1; attempt <= 5; attempt++) {
        const result = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        if (result.status === 200) {
          acknowledged.add(id);
          break;
        }
        await new Promise((r) => setTimeout(r, 40 * attempt));
      }
    }
  }
  await Promise.all(Array.from({ length: 50 }, sender));
  if (mode === 'durable') {
    // The worker's side: each queued job runs with retries, as BullMQ would run it.
    let taken = 0;
    const worker = async () => {
      while (taken < jobs.length) {
        const job = jobs[taken++]!;
        for (let attempt = 1; attempt <= 3; attempt++) {
          const done = await internalsOf(receiver)
            .processing.runQueued(job, { attempt, final: attempt === 3 })
            .then(
              () => true,
              () => false,
            );
          if (done) break;
        }
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
  }
  expect(await receiver.drain({ timeoutMs: 20_000 })).toBe(true);
  process.off('unhandledRejection', onCrash);
  process.off('uncaughtException', onCrash);

  const twice = [...successes].filter(([, n]) => n > 1);
  const lost = [...acknowledged].filter((id) => (successes.get(id) ?? 0) !== 1 && !reported.has(id));
  const counts = {
    fates: Object.fromEntries(behaviours),
    acknowledged: acknowledged.size,
    handledOnce: [...successes.values()].filter((n) => n === 1).length,
    reported: reported.size,
    statuses: Object.fromEntries(statuses),
  };
  console.log(`chaos ${mode}: ${JSON.stringify(counts)}`);
  return { crashes, twice, lost, counts, behaviours };
}

describe('chaos: 2 000 deliveries, odd throwables, hung and slow handlers, a logger that throws', () => {
  it.each<AckMode>(['inline', 'background', 'durable'])(
    '%s: every acknowledged event handled exactly once or reported; none twice; no crash',
    async (mode) => {
      const { crashes, twice, lost, counts, behaviours } = await chaos(mode);
      expect(crashes).toEqual([]);
      expect(twice).toEqual([]);
      expect(lost).toEqual([]);
      expect(counts.acknowledged).toBeGreaterThan(unique * 0.8);
      // The faults really happened.
      for (const fate of ['odd', 'hang', 'slow'] as const) expect(behaviours.get(fate)).toBeGreaterThan(10);
    },
    60_000,
  );
});
