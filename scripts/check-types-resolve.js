// attw (Are the types wrong?) on the packed package, esm-only: silent when every entry point resolves
// (its table lists the CommonJS resolutions the profile ignores, as 💀, on every run), the whole table
// when one does not.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const attw = fileURLToPath(new URL('../test/runtimes/node_modules/.bin/attw', import.meta.url));
const args = ['--pack', '.', '--profile', 'esm-only'];
const quiet = spawnSync(attw, [...args, '--quiet'], { stdio: 'inherit' });
if (quiet.status === 0) {
  console.log('attw: every entry point resolves for ESM and bundlers (profile esm-only)');
  process.exit(0);
}
spawnSync(attw, args, { stdio: 'inherit' });
process.exit(quiet.status ?? 1);
