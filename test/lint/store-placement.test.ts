import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README's rule: every store lives with its backend. Memory stores sit in the core beside their
// feature; Redis stores in src/redis (pixhook/redis); Postgres stores in src/postgres (pixhook/postgres).
const sources = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join('src', file).replaceAll('\\', '/'));

const stores = sources.flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/^export function ((memory|redis|postgres)\w*(?:Store|Quarantine|Inbox))\(/gm)].map((match) => ({
    name: match[1]!,
    backend: match[2] as 'memory' | 'redis' | 'postgres',
    file,
  })),
);

const exportedNames = (entry: string) => readFileSync(entry, 'utf8');

describe('every store lives with its backend', () => {
  it('finds the stores it checks', () => {
    expect(stores.map((s) => s.name).sort()).toEqual(
      expect.arrayContaining([
        'memoryDedupeStore',
        'memoryWatchStore',
        'postgresInbox',
        'postgresWatchStore',
        'redisDedupeStore',
        'redisQuarantine',
        'redisWatchStore',
      ]),
    );
  });

  it.each(stores)('$name ($file)', ({ name, backend, file }) => {
    if (backend === 'memory') {
      expect(file).not.toMatch(/^src\/(redis|postgres)\//);
      return;
    }
    expect(file.startsWith(`src/${backend}/`)).toBe(true);
    expect(exportedNames(`src/${backend}/index.ts`)).toMatch(new RegExp(`\\b${name}\\b`));
    // Exported from its backend's subpath only: no other entry point re-exports it.
    for (const entry of sources.filter((f) => f.endsWith('/index.ts') && f !== `src/${backend}/index.ts`)) {
      expect(exportedNames(entry), entry).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});
