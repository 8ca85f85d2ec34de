// Issue 38: every PSP source on every adapter (core, node:http, Express 4 and 5, Fastify, Hono's fetch
// handler, Next's App and Pages routers), over real HTTP, with the API Pix contract's own runner servers.
import { adapters } from '../api-pix/api-pix-targets.js';
import { profiles } from './psp-profiles.js';
import { runPspContract } from './run-psp-contract.js';

for (const adapter of adapters.filter((a) => a.modes.includes('urlSecret') && a.knowsPeerAddress !== false))
  for (const profile of profiles) runPspContract(adapter, profile);
