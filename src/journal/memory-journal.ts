import { PixhookError } from '../shared/pixhook-error.js';
import { checkInteger, checkObject } from '../shared/option-checks.js';
import type { DeliveryJournal, JournalAttempt, JournalEntry, JournalQuery } from './delivery-journal.js';
import { BodyCells } from './body-cells.js';
import { JournalListeners } from './journal-listeners.js';
import { copyAttempt, copyEntry, listLimit, matchesQuery } from './journal-query.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

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

  /** The slot of the `i`-th newest (0 for the newest), or -1 past the end. */
  newest(i: number): number {
    const held = this.slots.length;
    return i >= held ? -1 : (this.next - 1 - i + 2 * held) % held;
  }
}

/**
 * The default journal: the newest `max` verified deliveries of this process and, apart, the newest
 * `maxUnverified` unverified ones, newest first. Two rings plus an index by id (to the slot), so adding,
 * dropping the oldest and finding one are O(1). A verified entry's body is kept as bytes in its slot's
 * cell (body-cells.ts) when it fits, so a kept delivery is one small object rather than that and a
 * body string. Entries come out as copies (a reader changing what it got never changes the journal);
 * `add` keeps the entry it is given (or, with the body in its cell, a copy without it) and its attempts
 * array, so the writer does not pay for a deep copy per delivery: do not change them after.
 */
export function memoryJournal(options: MemoryJournalOptions = {}): MemoryJournal {
  refuseUnknownOptions(options, memoryJournalOptionNames, 'memoryJournal');
  checkObject('options', options, 'an object ({ max })');
  const max = checkInteger('max', options.max, 1, 1_000_000, 1000);
  const maxUnverified = checkInteger('maxUnverified', options.maxUnverified, 1, 1_000_000, Math.max(1, Math.floor(max / 10)));
  const genuine = new Ring(max);
  const unverified = new Ring(maxUnverified);
  const cells = new BodyCells(max);
  // id → slot: a genuine entry's slot as is, an unverified one's as -(slot + 1).
  const byId = new Map<string, number>();
  const listeners = new JournalListeners();

  const ringOf = (ref: number): Ring => (ref >= 0 ? genuine : unverified);
  const slotOf = (ref: number): number => (ref >= 0 ? ref : -ref - 1);
  const stored = (ref: number): JournalEntry => ringOf(ref).slots[slotOf(ref)]!;

  /** The entry as it was given: a reader's own copy, the body back from its cell. */
  function read(ref: number): JournalEntry {
    const copy = copyEntry(stored(ref));
    if (ref >= 0) {
      const body = cells.get(ref);
      if (body !== undefined) copy.body = body;
    }
    return copy;
  }

  function told(ref: number): void {
    if (listeners.size === 0) return;
    const failed = listeners.notify(read(ref));
    if (failed !== undefined) throw new PixhookError('internal_error', 'a journal subscriber threw', { cause: failed.error });
  }

  /** Puts `entry` in `slot` of `ring` (in the genuine ring, the body in the slot's cell when it fits); returns its ref. */
  function place(entry: JournalEntry, ring: Ring, slot: number): number {
    if (ring === unverified) {
      unverified.slots[slot] = entry;
      return -slot - 1;
    }
    const body = entry.body;
    genuine.slots[slot] = body !== undefined && cells.put(slot, body) ? { ...entry, body: undefined } : entry;
    if (body === undefined) cells.clear(slot);
    return slot;
  }

  function add(entry: JournalEntry): void {
    const previous = byId.get(entry.id);
    let ref: number;
    if (previous !== undefined) {
      // The same id again replaces the entry in its place (a writer retrying an add).
      ref = place(entry, ringOf(previous), slotOf(previous));
    } else {
      const ring = entry.verified ? genuine : unverified;
      const slot = ring.next;
      const dropped = ring.slots[slot];
      if (dropped !== undefined) byId.delete(dropped.id);
      ring.next = (slot + 1) % ring.max;
      ref = place(entry, ring, slot);
    }
    byId.set(entry.id, ref);
    told(ref);
  }

  function addAttempt(id: string, attempt: JournalAttempt): void {
    const ref = byId.get(id);
    if (ref === undefined) return;
    const entry = stored(ref);
    if (entry.attempts.length >= maxAttemptsPerEntry) entry.attempts.shift();
    entry.attempts.push(copyAttempt(attempt));
    told(ref);
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
      if (a < 0 && b < 0) break;
      const takeA = b < 0 || (a >= 0 && genuine.slots[a]!.id > unverified.slots[b]!.id);
      const ref = takeA ? a : -b - 1;
      if (takeA) g++;
      else u++;
      if (matchesQuery(stored(ref), query)) found.push(read(ref));
    }
    return found;
  }

  return {
    add: (entry) => run(() => add(entry)),
    addAttempt: (id, attempt) => run(() => addAttempt(id, attempt)),
    get: (id) =>
      run(() => {
        const ref = byId.get(id);
        return ref === undefined ? undefined : read(ref);
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

/** Every option memoryJournal takes. */
const memoryJournalOptionNames = optionNames<MemoryJournalOptions>()(['max', 'maxUnverified']);
