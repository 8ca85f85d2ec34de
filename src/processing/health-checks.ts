import type { PaymentBook } from '../book/payment-book.js';
import type { DedupeStore } from '../dedupe/dedupe-store.js';
import type { DeliveryJournal } from '../journal/delivery-journal.js';
import { describeError } from '../shared/describe-error.js';
import { redactSecrets } from '../shared/redact-secrets.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { EventQueue } from './processing-options.js';

/** One backend's answer: `detail` says why it failed (never a secret: URLs' passwords, tokens are `***`). */
export interface HealthCheck {
  ok: boolean;
  detail?: string;
}

/** `receiver.health()`: `ok` when every check is; one check for each of `store`, `book`, `journal`, `queue` present. */
export interface ReceiverHealth {
  ok: boolean;
  checks: Record<string, HealthCheck>;
}

/** What a processing was built on: the parts a health check reads. */
interface HealthParts {
  store?: DedupeStore | undefined;
  book?: PaymentBook | undefined;
  journal?: DeliveryJournal | undefined;
  queue?: EventQueue | undefined;
}

/** A queue that can count its jobs (a `DurableQueue`): a round trip to its backend. */
interface CountingQueue {
  counts(): Promise<unknown>;
}

let probes = 0;

/**
 * Asks each part one cheap question, all at once, each bounded by `timeoutMs`: the store claims and gives back a
 * key of its own (`pixhook-health:<n>`), the book reads a charge that does not exist, the journal lists one entry,
 * a durable queue counts its jobs (another queue is taken as it is). Never rejects.
 */
export async function checkHealth(parts: HealthParts, timeoutMs: number): Promise<ReceiverHealth> {
  const probe = async (what: string, run: () => unknown): Promise<HealthCheck> => {
    try {
      await withTimeout(Promise.resolve().then(run), timeoutMs, `${what} health check`);
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: redactSecrets(describeError(error)) };
    }
  };
  const checks: Record<string, Promise<HealthCheck>> = {};
  const { store } = parts;
  if (store)
    checks['store'] = probe('store', async () => {
      const key = `pixhook-health:${process.pid}:${++probes}`;
      const owner = `health-${probes}`;
      const claimed = await store.claim(key, owner, timeoutMs);
      if (claimed === 'claimed') await store.release(key, owner);
    });
  if (parts.book) checks['book'] = probe('book', () => parts.book!.get('pixhook-health-check'));
  if (parts.journal) checks['journal'] = probe('journal', () => parts.journal!.list({ limit: 1 }));
  if (parts.queue) {
    const queue = parts.queue as Partial<CountingQueue>;
    checks['queue'] = probe('queue', () => (typeof queue.counts === 'function' ? queue.counts() : undefined));
  }
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => checks[name]!));
  const settled = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
  return { ok: results.every((check) => check.ok), checks: settled };
}
