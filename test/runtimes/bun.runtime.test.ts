import { afterAll } from 'vitest';
import { runRemoteContractSuite } from '../contract/run-contract-suite.js';
import { runtimePath } from '../helpers/test-runtimes.js';
import { packedApp, serve } from './runtime-harness.js';

// pixhook/web from the packed package, served by a real Bun (Bun.serve), over real HTTP.
const app = packedApp();
afterAll(() => app.dispose());
runRemoteContractSuite('pixhook/web on Bun', () => serve(runtimePath('bun'), ['bun-server.js'], { cwd: app.dir }));
