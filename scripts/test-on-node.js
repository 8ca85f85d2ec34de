// Runs the contract suites and the examples' tests on Node 22 and 24 (real binaries from the
// test/runtimes package, node22 / node24), after the main run on the Node that started `npm test`.
// Each run writes its own vitest JSON report; .ci/run adds their counts to the closing line.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const files = [
  'test/contract',
  'test/adapters/express.contract.test.ts',
  'test/adapters/fastify.contract.test.ts',
  'test/adapters/next.contract.test.ts',
  'test/adapters/node.contract.test.ts',
  'test/adapters/web.contract.test.ts',
  'test/examples',
];
let failed = false;
for (const major of process.argv.slice(2)) {
  const node = new URL(`../test/runtimes/node_modules/node${major}/bin/node`, import.meta.url).pathname;
  if (!existsSync(node)) {
    console.error(`test-on-node: node${major} is not installed (node scripts/install-test-runtimes.js installs it; npm test does)`);
    process.exit(1);
  }
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n── Node ${version}: contract suites and examples ──`);
  const run = spawnSync(
    node,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      ...files,
      '--coverage.enabled=false',
      '--typecheck.enabled=false',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=.vitest/report-node${major}.json`,
    ],
    { stdio: 'inherit', env: { ...process.env, PATH: `${node.replace(/\/node$/, '')}:${process.env.PATH}` } },
  );
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
