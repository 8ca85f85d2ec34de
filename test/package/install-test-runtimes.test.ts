import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// `npm test` runs scripts/install-test-runtimes.js before anything that needs test/runtimes. Here it is
// pointed at a tiny package of the same shape: one dependency, a local tarball, pinned by a lockfile.
const script = fileURLToPath(new URL('../../scripts/install-test-runtimes.js', import.meta.url));
const run = promisify(execFile);
const tempDir = useTempDirs('pixhook-runtimes-');
let runtimes: string;

const installedVersion = () =>
  (JSON.parse(readFileSync(join(runtimes, 'node_modules/tiny-runtime/package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  const root = tempDir();
  mkdirSync(join(root, 'tiny'));
  writeFileSync(join(root, 'tiny/package.json'), JSON.stringify({ name: 'tiny-runtime', version: '1.0.0' }));
  await run('npm', ['pack', '--silent', '--pack-destination', root], { cwd: join(root, 'tiny') });
  runtimes = join(root, 'runtimes');
  mkdirSync(runtimes);
  writeFileSync(
    join(runtimes, 'package.json'),
    JSON.stringify({ name: 'runtimes', private: true, dependencies: { 'tiny-runtime': 'file:../tiny-runtime-1.0.0.tgz' } }),
  );
  await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: runtimes });
}, 60_000);

describe('scripts/install-test-runtimes.js', () => {
  it('installs the package from its lockfile when it is missing, saying so in one line', async () => {
    const result = await runProcess(script, [runtimes]);
    expect(result.code).toBe(0);
    expect(
      result.stderr
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('pixhook tests:')),
    ).toEqual([expect.stringMatching(/^pixhook tests: installing .*runtimes from its lockfile \(npm ci --prefix .*runtimes\)$/)]);
    expect(installedVersion()).toBe('1.0.0');
  }, 60_000);

  it('does nothing and prints nothing when what is installed matches the lockfile', async () => {
    const marker = join(runtimes, 'node_modules/left-alone');
    writeFileSync(marker, '');
    const result = await runProcess(script, [runtimes]);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // npm ci would have emptied node_modules first.
    expect(existsSync(marker)).toBe(true);
  });

  it('reinstalls when an installed version differs from the lockfile', async () => {
    const installed = join(runtimes, 'node_modules/tiny-runtime/package.json');
    writeFileSync(installed, JSON.stringify({ name: 'tiny-runtime', version: '0.9.0' }));
    const result = await runProcess(script, [runtimes]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/installing/);
    expect(installedVersion()).toBe('1.0.0');
  }, 60_000);

  it('fails with one line naming the command when npm ci cannot install', async () => {
    const broken = tempDir();
    writeFileSync(
      join(broken, 'package.json'),
      JSON.stringify({ name: 'broken', private: true, dependencies: { gone: 'file:./gone.tgz' } }),
    );
    writeFileSync(
      join(broken, 'package-lock.json'),
      JSON.stringify({
        name: 'broken',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'broken', dependencies: { gone: 'file:./gone.tgz' } },
          'node_modules/gone': { version: '1.0.0', resolved: 'file:gone.tgz' },
        },
      }),
    );
    const result = await runProcess(script, [broken]);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^pixhook tests: could not install .* \(npm ci exited \d+\); run npm ci --prefix .+$/,
    );
  }, 60_000);
});
