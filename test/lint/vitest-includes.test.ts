import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

// An include that matches nothing hides a typo or a folder that moved: every glob must find a file.
const tracked = ['adapters', 'bench', 'cli', 'examples', 'src', 'test'].flatMap((dir) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file).replaceAll('\\', '/')),
);

/** The glob forms the config uses: `**` for any folders, `*` within one name. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replaceAll('**/', '\u0000').replaceAll('*', '[^/]*').replaceAll('\u0000', '(?:.*/)?')}$`);
}

describe('vitest.config.ts', () => {
  const test = config.test ?? {};
  it.each([
    ...(test.include ?? []).map((glob) => ['include', glob]),
    ...(test.typecheck?.include ?? []).map((glob) => ['typecheck.include', glob]),
    ...((test.coverage as { include?: string[] } | undefined)?.include ?? []).map((glob) => ['coverage.include', glob]),
  ])('%s %s matches at least one file', (_where, glob) => {
    const pattern = globToRegExp(glob);
    expect(tracked.filter((file) => pattern.test(file)).length).toBeGreaterThan(0);
  });

  it('reads the globs it checks', () => {
    expect(globToRegExp('test/**/*.test.ts').test('test/a/b/c.test.ts')).toBe(true);
    expect(globToRegExp('test/**/*.test.ts').test('test/c.test.ts')).toBe(true);
    expect(globToRegExp('test/**/*.test.ts').test('test/c.test-d.ts')).toBe(false);
    expect(globToRegExp('src/**/*.ts').test('srcx/a.ts')).toBe(false);
  });
});
