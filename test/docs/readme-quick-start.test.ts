import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltPackage, startExample } from '../examples/example-process.js';
import { freePort } from '../helpers/free-port.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { linkPackage, markedBlock, repoRoot } from './doc-files.js';

// The README's quick start, run as a reader would: its server file saved in a project that installed pixhook, its
// first command started as the server, and the commands of the second terminal run by a shell (npx included).
// The port is the only thing changed: a free one instead of 3000. The framework snippets are the example files
// verbatim (test/examples/readme-quick-starts.test.ts), which node-examples.test.ts and next-app.test.ts start and
// send signed events, a retry (answered `duplicate`) and a forgery.
const readme = readFileSync(`${repoRoot}README.md`, 'utf8');
const serverFile = markedBlock(readme, 'quick-start: server.mjs');
const commands = markedBlock(readme, 'quick-start: commands').split('\n');
const serverCommand = commands[0]!;
const secondTerminal = commands
  .slice(commands.findIndex((line) => line.startsWith('# in a second terminal')))
  .filter((line) => !line.startsWith('#'));

const run = promisify(execFile);
const tempDir = useTempDirs('pixhook-quick-start-');
const { PIXHOOK_SECRET: _parentSecret, ...parentEnv } = process.env;
// npx finds pixhook in the project's node_modules/.bin; offline, so it never asks the registry.
const env = {
  ...parentEnv,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
};
let project = '';

describe('the README quick start, verbatim', () => {
  beforeAll(async () => {
    await requireBuiltPackage();
    project = tempDir();
    linkPackage(project);
    writeFileSync(`${project}/server.mjs`, serverFile);
  });

  it('is a server file, a start command and two sends in a second terminal', () => {
    expect(serverCommand).toBe('PIXHOOK_SECRET=whsec_local_test node server.mjs');
    expect(secondTerminal.filter((line) => line.startsWith('npx pixhook send '))).toHaveLength(2);
  });

  it('handles the first event, and answers the resend duplicate without running the handler again', async () => {
    const port = await freePort();
    const server = await startExample({
      command: 'bash',
      args: ['-c', serverCommand],
      cwd: project,
      env: { ...env, PORT: String(port) },
      waitFor: `http://127.0.0.1:${port}/webhooks/pix`,
    });
    try {
      const script = secondTerminal.map((line) => line.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)).join('\n');
      const sent = await run('bash', ['-e', '-c', script], { cwd: project, env, timeout: 60_000 });
      const attempts = sent.stdout.split('\n').filter((line) => line.startsWith('attempt '));
      expect(attempts.map((line) => line.split(/ {2}/).slice(0, 2))).toEqual([
        ['attempt 1/5', '200'],
        ['attempt 1/5', '200 duplicate'],
      ]);
      expect(sent.stdout).toContain('delivered: 200 after 1 of 5 attempts');
      expect(server.stdout()).toEqual([`listening on http://127.0.0.1:${port}`, 'paid txn_1 1990 cents']);
    } finally {
      await server.stop();
    }
  });

  it('without PIXHOOK_SECRET, says so in one line and exits 1', async () => {
    const result = await run(process.execPath, ['server.mjs'], { cwd: project, env }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('PIXHOOK_SECRET');
  });
});
