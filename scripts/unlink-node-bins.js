// The Node 22 and 24 test binaries (devDependencies node22 / node24) each declare a `node` bin, and
// npm links it as node_modules/.bin/node — which npm scripts put first on PATH, so `npm test` would
// run on Node 22 instead of the Node that started it. Remove that link; tests call the binaries by path.
import { lstatSync, readlinkSync, unlinkSync } from 'node:fs';

const link = new URL('../node_modules/.bin/node', import.meta.url);
try {
  if (lstatSync(link).isSymbolicLink() && /node2[24]/.test(readlinkSync(link))) unlinkSync(link);
} catch {
  // No link: nothing to do.
}
