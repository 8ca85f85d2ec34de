// The API Pix contract on other runtimes: pixhook/api-pix behind pixhook/web from the packed package, served by
// a real Deno (Deno.serve) and Bun (Bun.serve) over real HTTP, with the peer address each runtime gives.
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { runtimePath } from '../helpers/test-runtimes.js';
import { packedApp, serve } from '../runtimes/runtime-harness.js';
import { runRemoteApiPixContract } from './run-api-pix-contract.js';

const app = packedApp();
const fixtures = fileURLToPath(new URL('./runtime-fixtures', import.meta.url));
for (const file of readdirSync(fixtures)) cpSync(join(fixtures, file), join(app.dir, file));
afterAll(() => app.dispose());

runRemoteApiPixContract(
  'pixhook/web on Deno',
  () =>
    serve(
      runtimePath('deno'),
      ['run', '--no-remote', '--node-modules-dir=manual', '--allow-net', '--allow-read', '--allow-env', 'api-pix-deno-server.js'],
      { cwd: app.dir, env: { DENO_NO_UPDATE_CHECK: '1', DENO_DIR: `${app.dir}/.deno` } },
    ),
  ['urlSecret', 'proxy'],
);

runRemoteApiPixContract('pixhook/web on Bun', () => serve(runtimePath('bun'), ['api-pix-bun-server.js'], { cwd: app.dir }), [
  'urlSecret',
  'proxy',
]);
