import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm test`'s package check says one line when the types resolve: attw's table, with the CommonJS
// resolutions the esm-only profile ignores (💀 … (ignored)), is printed only when something fails.
const run = promisify(execFile);

describe('scripts/check-types-resolve.js', () => {
  it('passes on the built package with one line of output', { timeout: 120_000 }, async () => {
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-types-resolve.js'], { encoding: 'utf8' });
    expect(stdout.trim().split('\n')).toEqual(['attw: every entry point resolves for ESM and bundlers (profile esm-only)']);
    expect(stdout + stderr).not.toMatch(/💀|\(ignored\)/);
  });
});
