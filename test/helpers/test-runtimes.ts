// The runtimes and the browser driver only tests use live in their own package, test/runtimes (its own
// lockfile), so a clone's `npm ci` stays light; `npm test` installs it (scripts/install-test-runtimes.js).
// Every test finds them here, never through the root node_modules.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type PlaywrightCore = typeof import('../runtimes/node_modules/playwright-core/index.js');
export type { Browser, BrowserContext, Page } from '../runtimes/node_modules/playwright-core/index.js';

/** test/runtimes/node_modules. */
export const testRuntimesModules = fileURLToPath(new URL('../runtimes/node_modules/', import.meta.url));

export type TestRuntime = 'node22' | 'node24' | 'bun' | 'deno' | 'workerd';

const executables: Record<TestRuntime, string> = {
  node22: 'node22/bin/node',
  node24: 'node24/bin/node',
  // Their install scripts put the platform binary where these bin links point.
  bun: '.bin/bun',
  deno: '.bin/deno',
  workerd: '.bin/workerd',
};

/** The path of a test-only file, or one line saying how to install it. */
function installed(relative: string): string {
  const path = join(testRuntimesModules, relative);
  if (!existsSync(path))
    throw new Error(`test/runtimes is not installed (${relative} is missing): run \`node scripts/install-test-runtimes.js\``);
  return path;
}

/** The executable of a runtime the tests start: `node22`, `node24`, `bun`, `deno` or `workerd`. */
export function runtimePath(runtime: TestRuntime): string {
  return installed(executables[runtime]);
}

/** playwright-core's package directory. */
export function playwrightCorePath(): string {
  return installed('playwright-core');
}

/** playwright-core (Chromium's driver; it never downloads a browser: launch with `executablePath`). */
export async function importPlaywright(): Promise<PlaywrightCore> {
  return (await import(pathToFileURL(installed('playwright-core/index.mjs')).href)) as PlaywrightCore;
}

/** axe-core's script, to inject with `page.evaluate(source)` (a strict CSP refuses `addScriptTag`). */
export function axeCoreSource(): string {
  return readFileSync(installed('axe-core/axe.min.js'), 'utf8');
}
