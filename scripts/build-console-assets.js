// `npm run build`, after tsc: the console's client (src/console/client/*.ts) and uPlot, bundled by
// esbuild into one script, and the console's style sheet after uPlot's, both into the package
// (dist/src/console/assets), so the console is served from the package, offline, with no CDN.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const out = 'dist/src/console/assets';
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ['src/console/client/main.ts'],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  platform: 'browser',
  outfile: `${out}/console.js`,
  legalComments: 'eof',
  logLevel: 'warning',
});
const require = createRequire(import.meta.url);
const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
writeFileSync(`${out}/console.css`, `${uplotCss}\n${readFileSync('src/console/assets/console.css', 'utf8')}`);
if (process.argv.includes('--sizes')) {
  for (const name of ['console.js', 'console.css']) console.log(`${name}: ${statSync(`${out}/${name}`).size} bytes`);
}
