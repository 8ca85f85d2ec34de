import { PixhookError } from '../shared/pixhook-error.js';
import { checkInteger, checkObject } from '../shared/option-checks.js';
import type { DeliveryJournal, JournalAttempt, JournalEntry, JournalQuery } from './delivery-journal.js';
import { JournalListeners } from './journal-listeners.js';
import { copyAttempt, copyEntry, listLimit, matchesQuery } from './journal-query.js';

export interface MemoryJournalOptions {
  /** The newest `max` verified deliveries are kept; older ones are dropped. Default 1000. */
  max?: number;
  /**
   * Unverified deliveries (a bad or missing signature) are kept apart: the newest `maxUnverified`, so a
   * flood of forged requests never pushes out a genuine entry. Default a tenth of `max` (at least 1).
   */
  maxUnverified?: number;
}

/** The memory journal answers from this process only; its `size` is the number of deliveries held. */
export interface MemoryJournal extends DeliveryJournal {
  readonly size: number;
}

/** Attempts kept per delivery: a durable job retried many times must not grow one entry without bound. */
export const maxAttemptsPerEntry = 100;

/** A fixed-size ring, oldest overwritten first. */
class Ring {
  readonly slots: (JournalEntry | undefined)[] = [];
  // The slot the next entry goes to; once the ring is full it holds the oldest entry.
  next = 0;
  constructor(readonly max: number) {}

  /** Puts `entry` in, returning the entry it pushed out. */
  put(entry: JournalEntry): JournalEntry | undefined {
    const dropped = this.slots[this.next];
    this.slots[this.next] = entry;
    this.next = (this.next + 1) % this.max;
    return dropped;
  }

  /** The `i`-th newest (0 for the newest), or undefined past the end. */
  newest(i: number): JournalEntry | undefined {
    const held = this.slots.length;
    return i >= held ? undefined : this.slots[(this.next - 1 - i + 2 * held) % held];
  }
}

/**
 * The default journal: the newest `max` verified deliveries of this process and, apart, the newest
 * `maxUnverified` unverified ones, newest first. Two rings plus an index by id, so adding, dropping the
 * oldest and finding one are O(1). Entries come out as copies (a reader changing what it got never
 * changes the journal); `add` keeps the entry it is given and its attempts array, so the writer does not
 * pay for a copy per delivery: do not change them after.
 */
export function memoryJournal(options: MemoryJournalOptions = {}): MemoryJournal {
  checkObject('options', options, 'an object ({ max })');
  const max = checkInteger('max', options.max, 1, 1_000_000, 1000);
  const maxUnverified = checkInteger('maxUnverified', options.maxUnverified, 1, 1_000_000, Math.max(1, Math.floor(max / 10)));
  const genuine = new Ring(max);
  const unverified = new Ring(maxUnverified);
  const byId = new Map<string, JournalEntry>();
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
      const ring = previous.verified ? genuine : unverified;
      ring.slots[ring.slots.indexOf(previous)] = own;
    } else {
      const dropped = (own.verified ? genuine : unverified).put(own);
      if (dropped !== undefined) byId.delete(dropped.id);
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
    // Newest first: the two rings merged by id (ids sort by time).
    let g = 0;
    let u = 0;
    while (found.length < limit) {
      const a = genuine.newest(g);
      const b = unverified.newest(u);
      if (a === undefined && b === undefined) break;
      const takeA = b === undefined || (a !== undefined && a.id > b.id);
      const entry = takeA ? a! : b!;
      if (takeA) g++;
      else u++;
      if (matchesQuery(entry, query)) found.push(copyEntry(entry));
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
