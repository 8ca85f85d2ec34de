import type { JournalEntry } from './delivery-journal.js';
import { JournalListeners } from './journal-listeners.js';

/** What a shared backend's feed polls: the changes since a cursor (the first call, with none, only sets the cursor). */
export type ChangesSince = (cursor: string | undefined) => Promise<{ cursor: string; entries: JournalEntry[] }>;

/**
 * `subscribe` for a journal shared by several instances: polls the backend's change log every
 * `pollMs` while someone listens, so a separate process (`pixhook console --redis`) hears every
 * instance's writes. A poll or a listener that fails goes to `onError`; polling goes on.
 */
export class SharedJournalFeed {
  readonly #listeners = new JournalListeners();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #cursor: string | undefined;
  #polling = false;

  constructor(
    private readonly changes: ChangesSince,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  subscribe(listener: (entry: JournalEntry) => void): () => void {
    const remove = this.#listeners.add(listener);
    if (this.#listeners.size === 1 && this.#timer === undefined && !this.#polling) {
      this.#cursor = undefined;
      void this.#poll();
    }
    return () => {
      remove();
      if (this.#listeners.size === 0 && this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  async #poll(): Promise<void> {
    this.#timer = undefined;
    this.#polling = true;
    try {
      // Catch up in pages until nothing is left, then wait.
      for (;;) {
        const { cursor, entries } = await this.changes(this.#cursor);
        this.#cursor = cursor;
        for (const entry of entries) {
          const failed = this.#listeners.notify(entry);
          if (failed !== undefined) this.onError(failed.error);
        }
        if (entries.length === 0 || this.#listeners.size === 0) break;
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.#polling = false;
    }
    if (this.#listeners.size > 0) {
      this.#timer = setTimeout(() => void this.#poll(), this.pollMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }
}
