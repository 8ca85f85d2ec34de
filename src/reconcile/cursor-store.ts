/**
 * Where the listing reconciler keeps its cursor: the moment up to which every Pix listed by the PSP has been
 * handed to processing. Several cursors live in one store under their `name` (one per PSP account).
 */
export interface CursorStore {
  /** Epoch milliseconds, or undefined when nothing was saved under `name`. */
  get(name: string): Promise<number | undefined>;
  set(name: string, position: number): Promise<void>;
}
