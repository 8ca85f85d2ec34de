import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/temp-dirs.js';

// What a consumer gets: the files `npm pack` ships, and what installing the tarball runs or prints.
const repo = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const tempDir = useTempDirs('pixhook-packed-');

interface PackedFile {
  path: string;
}
let shipped: Set<string>;

beforeAll(async () => {
  if (!existsSync(join(repo, 'dist/src/index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo });
  const [pack] = JSON.parse(stdout) as [{ files: PackedFile[] }];
  shipped = new Set(pack.files.map((f) => f.path));
});

/** The shipped files a shipped file points to (`sourceMappingURL`, a map's `sources`), resolved inside the package. */
function references(path: string): string[] {
  const text = readFileSync(join(repo, path), 'utf8');
  const at = (target: string) => posix.normalize(posix.join(posix.dirname(path), target));
  if (path.endsWith('.map')) {
    const map = JSON.parse(text) as { sourceRoot?: string; sources: string[] };
    return map.sources.map((source) => at(posix.join(map.sourceRoot ?? '', source)));
  }
  return [...text.matchAll(/^\/\/# sourceMappingURL=(\S+)$/gm)].map((m) => at(m[1]!));
}

describe('the packed tarball', () => {
  it('ships the build and no source maps (the build drops them: src/ is not shipped, so they would point nowhere)', () => {
    expect([...shipped].filter((f) => f.startsWith('dist/')).length).toBeGreaterThan(50);
    expect([...shipped].filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('has no file pointing at a file outside the tarball', () => {
    const dangling = [...shipped]
      .filter((f) => /\.(js|d\.ts|map)$/.test(f))
      .flatMap((f) => references(f).map((target) => [f, target]))
      .filter(([, target]) => !shipped.has(target!));
    expect(dangling).toEqual([]);
  });

  it('declares no lifecycle script that a consumer install or a git dependency would run', () => {
    const { scripts = {} } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack', 'prepublish'];
    expect(Object.keys(scripts).filter((name) => lifecycle.includes(name))).toEqual([]);
  });

  it('installs into a fresh project without any lifecycle script warning, and imports', async () => {
    const packs = tempDir();
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: repo });
    const tarball = join(packs, stdout.trim().split('\n').at(-1)!);
    const app = tempDir();
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const install = await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app });
    const printed = `${install.stdout}${install.stderr}`;
    expect(printed).toMatch(/added \d+ packages?/);
    expect(printed).not.toMatch(/install-scripts|lifecycle|pixhook@[^\s]* \(/);
    const probe = await run(
      process.execPath,
      ['--input-type=module', '-e', "console.log(typeof (await import('pixhook')).createReceiver)"],
      {
        cwd: app,
      },
    );
    expect(probe.stdout.trim()).toBe('function');
  }, 180_000);
});

describe("the repository's install", () => {
  // node22 / node24 each declare a `node` bin: installed at the root, npm scripts would run on them.
  it('puts no package declaring a `node` bin in the root lockfile', () => {
    const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { bin?: Record<string, string> }>;
    };
    const nodeBins = Object.entries(lock.packages).filter(([, entry]) => entry.bin?.node !== undefined);
    expect(nodeBins.map(([path]) => path)).toEqual([]);
    expect(existsSync(join(repo, 'node_modules/.bin/node'))).toBe(false);
  });

  it('keeps the test-only runtimes out of the root devDependencies', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const testOnly = ['node22', 'node24', 'bun', 'deno', 'workerd', 'playwright-core', 'axe-core', '@arethetypeswrong/cli', 'publint'];
    expect(Object.keys(devDependencies).filter((name) => testOnly.includes(name))).toEqual([]);
    const runtimes = JSON.parse(readFileSync(join(repo, 'test/runtimes/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(runtimes.dependencies)).toEqual(expect.arrayContaining(testOnly));
    expect(existsSync(join(repo, 'test/runtimes/package-lock.json'))).toBe(true);
  });
});
