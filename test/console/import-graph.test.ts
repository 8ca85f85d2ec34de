import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 23: a receiver that never mounts the console loads none of it. Every module the built core
// entry can load (static imports, re-exports and dynamic imports, followed to the end) is outside src/console.
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g))
      pending.push(resolve(dirname(file), match[1]!));
  }
  return seen;
}

describe("the console stays out of the core's import graph", () => {
  it.each(['src/index.js', 'adapters/express/index.js', 'adapters/node/index.js', 'src/redis/index.js'])(
    '%s loads no console module',
    (entry) => {
      const files = [...reachable(`${dist}${entry}`)];
      expect(files.length).toBeGreaterThan(5);
      expect(files.filter((f) => f.includes('/console/'))).toEqual([]);
    },
  );

  it('pixhook/console does load it (the walk follows imports)', () => {
    expect([...reachable(`${dist}src/console/index.js`)].some((f) => f.endsWith('/console/create-console.js'))).toBe(true);
  });
});
