import { PixhookError } from '../shared/pixhook-error.js';
import { checkInteger, checkObject } from '../shared/option-checks.js';
import type { DeliveryJournal, JournalAttempt, JournalEntry, JournalQuery } from './delivery-journal.js';
import { JournalListeners } from './journal-listeners.js';
import { copyAttempt, copyEntry, listLimit, matchesQuery } from './journal-query.js';

export interface MemoryJournalOptions {
  /** The newest `max` deliveries are kept; older ones are dropped. Default 1000. */
  max?: number;
}

/** The memory journal answers from this process only; its `size` is the number of deliveries held. */
export interface MemoryJournal extends DeliveryJournal {
  readonly size: number;
}

/** Attempts kept per delivery: a durable job retried many times must not grow one entry without bound. */
export const maxAttemptsPerEntry = 100;

/**
 * The default journal: the newest `max` deliveries of this process, newest first. A ring of entries
 * plus an index by id, so adding, dropping the oldest and finding one are O(1). Entries come out as
 * copies (a reader changing what it got never changes the journal); `add` keeps the entry it is given
 * and its attempts array, so the writer does not pay for a copy per delivery: do not change them after.
 */
export function memoryJournal(options: MemoryJournalOptions = {}): MemoryJournal {
  checkObject('options', options, 'an object ({ max })');
  const max = checkInteger('max', options.max, 1, 1_000_000, 1000);
  const ring: (JournalEntry | undefined)[] = [];
  const byId = new Map<string, JournalEntry>();
  // The slot the next entry goes to; once the ring is full it holds the oldest entry.
  let next = 0;
  const listeners = new JournalListeners();

  function told(entry: JournalEntry): void {
    if (listeners.size === 0) return;
    const failed = listeners.notify(entry);
    if (failed !== undefined) throw new PixhookError('internal_error', 'a journal subscriber threw', { cause: failed.error });
  }

  function add(entry: JournalEntry): void {
    const own = entry;
    const previous = byId.get(own.id);
    if (previous !== undefined) {
      // The same id again replaces the entry in its place (a writer retrying an add).
      ring[ring.indexOf(previous)] = own;
    } else {
      const dropped = ring[next];
      if (dropped !== undefined) byId.delete(dropped.id);
      ring[next] = own;
      next = (next + 1) % max;
    }
    byId.set(own.id, own);
    told(own);
  }

  function addAttempt(id: string, attempt: JournalAttempt): void {
    const entry = byId.get(id);
    if (entry === undefined) return;
    if (entry.attempts.length >= maxAttemptsPerEntry) entry.attempts.shift();
    entry.attempts.push(copyAttempt(attempt));
    told(entry);
  }

  function list(query?: JournalQuery): JournalEntry[] {
    const limit = listLimit(query);
    const found: JournalEntry[] = [];
    const held = ring.length;
    // Newest first: back from the slot before `next`, around the ring once.
    for (let i = 1; i <= held && found.length < limit; i++) {
      const entry = ring[(next - i + held) % held];
      if (entry !== undefined && matchesQuery(entry, query)) found.push(copyEntry(entry));
    }
    return found;
  }

  return {
    add: (entry) => run(() => add(entry)),
    addAttempt: (id, attempt) => run(() => addAttempt(id, attempt)),
    get: (id) =>
      run(() => {
        const entry = byId.get(id);
        return entry === undefined ? undefined : copyEntry(entry);
      }),
    list: (query) => run(() => list(query)),
    subscribe: (listener) => listeners.add(listener),
    get size() {
      return byId.size;
    },
  };
}

/** Every method returns a promise, and a throw becomes a rejection. */
function run<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
