// Runs in `npm test`, before anything needs them: the runtimes and tools only the tests use (Node 22
// and 24, Bun, Deno, workerd, playwright-core, axe-core, the package checkers) live in their own
// package, test/runtimes, so `npm ci && npm run demo` does not download them. Installs that package
// from its own lockfile when what is on disk does not match it; otherwise returns at once. An argument
// names another package directory (the tests use a tiny one).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../test/runtimes', import.meta.url));
const shown = relative(process.cwd(), dir) || '.';

function installedVersion(path) {
  try {
    return JSON.parse(readFileSync(join(dir, path, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** Every package the lockfile pins, except other platforms' optional binaries, is on disk at its pinned version. */
function upToDate() {
  const { packages } = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  return Object.entries(packages).every(([path, entry]) => path === '' || entry.optional || installedVersion(path) === entry.version);
}

if (!upToDate()) {
  process.stderr.write(`pixhook tests: installing ${shown} from its lockfile (npm ci --prefix ${shown})\n`);
  const install = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  if (install.status !== 0 || !upToDate()) {
    process.stderr.write(
      `pixhook tests: could not install ${shown} (npm ci exited ${install.status ?? install.signal}); run npm ci --prefix ${shown}\n`,
    );
    process.exit(1);
  }
}
