import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli-process.js';

// `npm test` runs this script first: a missing redis-server or PostgreSQL is installed (root + apt-get)
// or named in one line, never discovered by test files failing on `spawn redis-server ENOENT`.
const script = fileURLToPath(new URL('../../scripts/require-test-servers.js', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pixhook-require-'));
  dirs.push(dir);
  return dir;
}

function fakeCommand(dir: string, name: string, body = 'exit 0'): void {
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

/** PATH holds only `bin` (no redis-server, no apt-get, unless the test puts them there). */
function run(bin: string, pgBin: string, env: Record<string, string | undefined> = {}) {
  return runProcess(script, [], { env: { PATH: bin, PIXHOOK_PG_BIN: pgBin, PIXHOOK_NO_INSTALL: undefined, ...env } });
}

describe('scripts/require-test-servers.js', () => {
  it('no redis-server and no PostgreSQL, installing forbidden: one line naming both, exit 1', async () => {
    const result = await run(tempDir(), tempDir(), { PIXHOOK_NO_INSTALL: '1' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^pixhook tests: missing redis-server and redis-cli \(Debian: apt-get install redis-server\) and PostgreSQL 15's initdb and pg_ctl/,
    );
    expect(result.stderr).not.toMatch(/ENOENT/);
  });

  it('redis-cli alone missing is named too; everything present: silent, exit 0', async () => {
    const bin = tempDir();
    const pgBin = tempDir();
    fakeCommand(bin, 'redis-server');
    fakeCommand(pgBin, 'initdb');
    fakeCommand(pgBin, 'pg_ctl');
    const partial = await run(bin, pgBin, { PIXHOOK_NO_INSTALL: '1' });
    expect([partial.code, partial.stderr]).toEqual([
      1,
      'pixhook tests: missing redis-server and redis-cli (Debian: apt-get install redis-server); install it, then run npm test again\n',
    ]);
    fakeCommand(bin, 'redis-cli');
    expect(await run(bin, pgBin, { PIXHOOK_NO_INSTALL: '1' })).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('with apt-get on PATH: as root it installs what is missing, like .ci/run, then goes on; otherwise it names it', async () => {
    const bin = tempDir();
    const pgBin = tempDir();
    fakeCommand(pgBin, 'initdb');
    fakeCommand(pgBin, 'pg_ctl');
    const calls = join(bin, 'apt-get.calls');
    // A stand-in apt-get that records its arguments and "installs" the two binaries into PATH.
    fakeCommand(
      bin,
      'apt-get',
      `echo "$@" >> ${calls}\ncase "$1" in install) printf '#!/bin/sh\\n' > ${bin}/redis-server; /bin/cp ${bin}/redis-server ${bin}/redis-cli; /bin/chmod +x ${bin}/redis-server ${bin}/redis-cli;; esac`,
    );
    const result = await run(bin, pgBin);
    if (process.getuid?.() !== 0) {
      expect([result.code, result.stderr]).toEqual([1, expect.stringMatching(/^pixhook tests: missing redis-server and redis-cli/)]);
      return;
    }
    expect(result.code).toBe(0);
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean)).toEqual(['update -qq', 'install -y -qq redis-server']);
    expect(result.stderr).toMatch(/^pixhook tests: installing redis-server with apt-get/);
  });

  it('npm test runs it first', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['test']).toMatch(/^node scripts\/require-test-servers\.js && /);
  });
});
