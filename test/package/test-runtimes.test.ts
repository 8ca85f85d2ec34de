import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { axeCoreSource, importPlaywright, playwrightCorePath, runtimePath, testRuntimesModules } from '../helpers/test-runtimes.js';

// The one place tests find what test/runtimes installs (npm test installs it first).
describe('test/helpers/test-runtimes.ts', () => {
  it.each([
    ['node22', /^v22\./],
    ['node24', /^v24\./],
    ['bun', /^1\./],
    ['deno', /^deno 2\./],
    ['workerd', /^workerd /],
  ] as const)('%s runs from test/runtimes', (runtime, version) => {
    const path = runtimePath(runtime);
    expect(path.startsWith(testRuntimesModules)).toBe(true);
    expect(execFileSync(path, ['--version'], { encoding: 'utf8', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } }).trim()).toMatch(
      version,
    );
  });

  it('loads playwright-core and axe-core from test/runtimes', async () => {
    expect(playwrightCorePath().startsWith(testRuntimesModules)).toBe(true);
    const { chromium } = await importPlaywright();
    expect(typeof chromium.launch).toBe('function');
    expect(axeCoreSource()).toMatch(/axe\.version\s*=|"version"|axe-core/);
  });
});
