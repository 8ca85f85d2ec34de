import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { testRuntimesModules } from '../helpers/test-runtimes.js';

// Compile-only: `Bun.serve({ fetch: createFetchHandler(receiver) })` and `Deno.serve(handler)` as the
// guides write them, type-checked with the runtimes' own types (@types/bun, @types/deno from
// test/runtimes) against the built package's .d.ts, as a user's project sees it.
const run = promisify(execFile);
const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;

async function typeCheck(runtime: 'bun' | 'deno'): Promise<string> {
  if (!existsSync('dist/adapters/web/index.d.ts')) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const args = [
    '--noEmit',
    '--strict',
    '--target',
    'ES2023',
    '--lib',
    'ES2023,DOM',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
  ];
  const types = ['--skipLibCheck', '--typeRoots', `${testRuntimesModules}@types`, '--types', runtime];
  const file = `test/runtimes/types/${runtime}-serve.ts`;
  return run(process.execPath, [tsc, ...args, ...types, file]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

describe('FetchHandler is the runtimes’ own handler type', () => {
  it.each(['bun', 'deno'] as const)('%s: serve(createFetchHandler(receiver)) type-checks', async (runtime) => {
    expect(await typeCheck(runtime)).toBe('');
  });
});
