import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Temp directories for one test file, removed when the file's tests are done. */
export function useTempDirs(prefix: string): () => string {
  const made: string[] = [];
  // Apps with their node_modules (the guides' tests) take a while to remove on a loaded machine.
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  }, 300_000);
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
