import { afterAll } from 'vitest';
import { runRemoteContractSuite } from '../contract/run-contract-suite.js';
import { runtimePath } from '../helpers/test-runtimes.js';
import { packedApp, serve } from './runtime-harness.js';

// pixhook/web from the packed package, served by a real Deno (Deno.serve), offline, over real HTTP.
const app = packedApp();
afterAll(() => app.dispose());
runRemoteContractSuite('pixhook/web on Deno', () =>
  serve(
    runtimePath('deno'),
    ['run', '--no-remote', '--node-modules-dir=manual', '--allow-net', '--allow-read', '--allow-env', 'deno-server.js'],
    {
      cwd: app.dir,
      env: { DENO_NO_UPDATE_CHECK: '1', DENO_DIR: `${app.dir}/.deno` },
    },
  ),
);
