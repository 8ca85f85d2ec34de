import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// `pixhook --version` and `--help` start in the time Node takes to start: they load the CLI's entry
// file and nothing else, and a command loads only its own module. Which files load is asserted, not a time.
const recorder = fileURLToPath(new URL('fixtures/record-imports.mjs', import.meta.url));
const tempDir = useTempDirs('pixhook-startup-');

/** The pixhook files (under dist/) that `pixhook <args>` loads. */
async function loadedBy(args: string[]): Promise<string[]> {
  const log = join(tempDir(), 'imports.log');
  const run = await runCli(args, { env: { NODE_OPTIONS: `--import=${recorder}`, PIXHOOK_IMPORT_LOG: log } });
  expect(run.code, run.stderr).toBe(0);
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.includes('/dist/'))
    .map((url) => url.slice(url.indexOf('/dist/') + 1));
}

describe('pixhook start-up', () => {
  it.each(['--version', '-v', '--help', ''])('pixhook %s loads only the entry file', async (flag) => {
    expect(await loadedBy(flag === '' ? [] : [flag])).toEqual(['dist/cli/main.js']);
  });

  it('pixhook verify --help loads the verify command and no other', async () => {
    const loaded = await loadedBy(['verify', '--help']);
    expect(loaded.filter((file) => file.endsWith('-command.js'))).toEqual(['dist/cli/verify-command.js']);
  });
});
