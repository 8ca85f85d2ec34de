import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltPackage, startExample } from '../examples/example-process.js';
import { freePort } from '../helpers/free-port.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { markedBlock, repoRoot } from './doc-files.js';

// Issue 37: the README's install ran `cd ../your-app` before any app existed, and its quick start ran
// `npm install pixhook`, which answers E404 while pixhook is not published. Here the install and the quick start
// run in order in an empty folder, on a machine where pixhook is not on the registry. The one stand-in: the clone's
// `npm ci && npm run build && npm pack` is this repository's `npm pack` (the test has no clone URL, and the
// repository is built), writing the tarball where the install block says. Every other line runs as written.
const readme = readFileSync(`${repoRoot}README.md`, 'utf8');
const install = markedBlock(readme, 'install: commands').trim().split('\n');
const create = markedBlock(readme, 'quick-start: create');
const commands = markedBlock(readme, 'quick-start: commands').split('\n');
const secondTerminal = commands
  .slice(commands.findIndex((line) => line.startsWith('# in a second terminal')))
  .filter((l) => !l.startsWith('#'));

const run = promisify(execFile);
const tempDir = useTempDirs('pixhook-readme-install-');
const { PIXHOOK_SECRET: _parentSecret, NODE_OPTIONS: _nodeOptions, ...parentEnv } = process.env;
// Dependencies from the npm cache (or the registry); pixhook itself only from the tarball: the registry has none.
const env: Record<string, string> = {
  ...(parentEnv as Record<string, string>),
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
};
let packed = '';

describe("the README's install and quick start, in order, with pixhook not published", () => {
  beforeAll(async () => {
    await requireBuiltPackage();
    const dir = tempDir();
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: repoRoot, env });
    packed = join(dir, stdout.trim().split('\n').at(-1)!);
  }, 120_000);

  it('install: clone, build and pack, then back to the folder the app is made in; no step names an app yet', () => {
    expect(install[0]).toMatch(/^git clone .+ pixhook && cd pixhook$/);
    expect(install.join('\n')).toMatch(/npm ci && npm run build && npm pack && cd \.\./);
    expect(install.join('\n')).not.toMatch(/your-app|npm install pixhook\b/);
    expect(create).not.toMatch(/npm install pixhook(\s|$)/);
    expect(create).toMatch(/^npm install \.\.\/pixhook\/pixhook-\d+\.\d+\.\d+\.tgz$/m);
  });

  it('the quick start installs the tarball in a fresh app, serves, handles the event once and answers the resend duplicate', async () => {
    const root = tempDir();
    // The install block, the stand-in for its build: the tarball lands in ./pixhook under the name the README gives.
    const tarballName = /pixhook-\d+\.\d+\.\d+\.tgz/.exec(create)![0];
    mkdirSync(join(root, 'pixhook'));
    copyFileSync(packed, join(root, 'pixhook', tarballName));
    expect(packed.endsWith(tarballName)).toBe(true);
    // From here on, the README verbatim: the app is made beside the clone.
    await run('bash', ['-e', '-c', create], { cwd: root, env, timeout: 240_000 });
    const app = join(root, 'pix-app');
    expect(existsSync(join(app, 'node_modules/pixhook/package.json'))).toBe(true);
    writeFileSync(join(app, 'server.mjs'), markedBlock(readme, 'quick-start: server.mjs'));
    const port = await freePort();
    const server = await startExample({
      command: 'bash',
      args: ['-c', commands[0]!],
      cwd: app,
      env: { ...env, PORT: String(port) },
      waitFor: `http://127.0.0.1:${port}/webhooks/pix`,
      timeoutMs: 30_000,
    });
    try {
      const script = secondTerminal.map((line) => line.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)).join('\n');
      const sent = await run('bash', ['-e', '-c', script], { cwd: app, env, timeout: 60_000 });
      expect(sent.stdout).toMatch(/^attempt 1\/5 {2}200 duplicate/m);
      expect(server.stdout()).toEqual([`listening on http://127.0.0.1:${port}`, 'paid txn_1 1990 cents']);
    } finally {
      await server.stop();
    }
  }, 300_000);
});
