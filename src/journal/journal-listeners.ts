import type { JournalEntry } from './delivery-journal.js';
import { copyEntry } from './journal-query.js';

/**
 * A journal's subscribers. Each hears its own copy; one that throws never stops the others, and the
 * first error is returned so the caller reports it (a write rejects with it, a shared backend's feed
 * hands it to its `onError`).
 */
export class JournalListeners {
  readonly #listeners = new Set<(entry: JournalEntry) => void>();

  get size(): number {
    return this.#listeners.size;
  }

  add(listener: (entry: JournalEntry) => void): () => void {
    // A wrapper per subscription: the same function subscribed twice hears twice and unsubscribes once each.
    const own = (entry: JournalEntry) => listener(entry);
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }

  /** Tells every listener; the first listener error, if any. */
  notify(entry: JournalEntry): { error: unknown } | undefined {
    let failure: { error: unknown } | undefined;
    for (const listener of [...this.#listeners]) {
      try {
        listener(copyEntry(entry));
      } catch (error) {
        failure ??= { error };
      }
    }
    return failure;
  }
}
