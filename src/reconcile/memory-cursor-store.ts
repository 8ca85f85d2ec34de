import type { CursorStore } from './cursor-store.js';

/** The cursor in this process: a restart starts again from the reconciler's `from` (use Redis or Postgres to keep it). */
export function memoryCursorStore(): CursorStore {
  const positions = new Map<string, number>();
  return {
    async get(name) {
      return positions.get(name);
    },
    async set(name, position) {
      positions.set(name, position);
    },
  };
}
