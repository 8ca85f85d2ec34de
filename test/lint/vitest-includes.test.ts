import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { integration, noTests, soak } from '../tiers.js';

// An include that matches nothing hides a typo or a folder that moved: every glob must find a file.
// Installed packages and build output are skipped: examples/next-app alone installs tens of thousands of files.
const tracked = ['adapters', 'bench', 'cli', 'examples', 'src', 'test'].flatMap((dir) => walk(dir));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name).replaceAll('\\', '/');
    if (!entry.isDirectory()) return [path];
    return /^(node_modules|dist|coverage|\.next|\.app-.*)$/.test(entry.name) ? [] : [path, ...walk(path)];
  });
}

/** The glob forms the config uses: `**` for any folders, `*` within one name. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${escaped
      .replace(/^\*\*\//, '\u0001')
      .replace(/\/\*\*$/, '\u0002')
      .replaceAll('**/', '\u0000')
      .replaceAll('*', '[^/]*')
      .replaceAll('\u0000', '(?:.*/)?')
      .replace('\u0001', '(?:.*/)?')
      .replace('\u0002', '/.*')}$`,
  );
}

const matches = (globs: readonly string[], file: string) => globs.some((glob) => globToRegExp(glob).test(file));

type Project = { test: { name: string; include?: string[]; exclude?: string[]; typecheck?: { include?: string[] } } };
const projects = (config.test?.projects ?? []) as Project[];

/** The project(s) vitest would run `file` in: included, and not excluded. */
function tiersOf(file: string, typeTest: boolean): string[] {
  return projects
    .filter(({ test }) => {
      const include = typeTest ? (test.typecheck?.include ?? []) : (test.include ?? []);
      return matches(include, file) && !matches(test.exclude ?? [], file);
    })
    .map(({ test }) => test.name);
}

const testFiles = tracked.filter((file) => file.startsWith('test/') && !matches(noTests, file));

describe('vitest.config.ts', () => {
  const coverage = (config.test?.coverage as { include?: string[] } | undefined)?.include ?? [];
  it.each([
    ...projects.flatMap(({ test }) => (test.include ?? []).map((glob) => [`${test.name} include`, glob])),
    ...projects.flatMap(({ test }) => (test.typecheck?.include ?? []).map((glob) => [`${test.name} typecheck.include`, glob])),
    ...coverage.map((glob) => ['coverage.include', glob]),
  ])('%s %s matches at least one file', (_where, glob) => {
    // The naming conventions are the rule for files to come; they may match nothing yet.
    if (/\*\.(integration|soak)\.test\.ts$/.test(glob)) return;
    expect(tracked.filter((file) => globToRegExp(glob).test(file) && !matches(noTests, file)).length).toBeGreaterThan(0);
  });

  it('has the three tiers', () => {
    expect(projects.map(({ test }) => test.name)).toEqual(['unit', 'integration', 'soak']);
  });

  it('runs every test file in exactly one tier', () => {
    const misplaced = testFiles
      .filter((file) => file.endsWith('.test.ts') || file.endsWith('.test-d.ts'))
      .map((file) => [file, tiersOf(file, file.endsWith('.test-d.ts'))] as const)
      .filter(([, tiers]) => tiers.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it.each([
    ['test/receiver.test.ts', 'unit'],
    ['test/newfolder/anything.test.ts', 'unit'],
    ['test/newfolder/anything.integration.test.ts', 'integration'],
    ['test/events/slow.soak.test.ts', 'soak'],
    ['test/redis/new-store.test.ts', 'integration'],
    ['test/redis/fault-run.test.ts', 'soak'],
    ['test/book/anything.property.test.ts', 'soak'],
    ['test/runtimes/node_modules/x/y.test.ts', 'none'],
  ])('puts %s in %s (the default rule)', (file, tier) => {
    expect(tiersOf(file, false)).toEqual(tier === 'none' ? [] : [tier]);
  });

  it('keeps unit tests off servers', () => {
    // The folders whose tests start servers or processes are integration, whatever a file is called.
    for (const folder of ['cli', 'redis', 'postgres', 'runtimes', 'package', 'examples', 'docs']) {
      expect(matches(integration, `test/${folder}/x.test.ts`) || matches(soak, `test/${folder}/x.test.ts`)).toBe(true);
    }
  });

  it('reads the globs it checks', () => {
    expect(globToRegExp('test/**/*.test.ts').test('test/a/b/c.test.ts')).toBe(true);
    expect(globToRegExp('test/**/*.test.ts').test('test/c.test.ts')).toBe(true);
    expect(globToRegExp('test/**/*.test.ts').test('test/c.test-d.ts')).toBe(false);
    expect(globToRegExp('src/**/*.ts').test('srcx/a.ts')).toBe(false);
    expect(globToRegExp('**/node_modules/**').test('test/runtimes/node_modules/a/b.ts')).toBe(true);
    expect(globToRegExp('**/node_modules/**').test('node_modules/a.ts')).toBe(true);
  });
});
