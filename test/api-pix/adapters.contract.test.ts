// The API Pix profile's contract on the core and on every adapter over real HTTP, in each auth mode the
// adapter can serve: urlSecret and proxy everywhere a peer address is known, mtls over real TLS where Node
// terminates it (node:http, Express 4 and 5, Fastify).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { post, type ApiPixCase } from './api-pix-case.js';
import { adapters, certificates, nextApp, type ApiPixTarget, type Certificates } from './api-pix-targets.js';
import { urlSecret } from './fixtures.js';
import { runApiPixContract, runCase } from './run-api-pix-contract.js';

for (const adapter of adapters) for (const mode of adapter.modes) runApiPixContract(adapter, mode);

// The App Router gives a route handler no socket, so no peer address: auth that decides on the address
// cannot tell the proxy (or an allowed PSP) from anyone else, and must refuse every call rather than believe one.
describe('API Pix on the Next.js App Router, which hands a route no peer address: address checks fail closed', () => {
  let certs: Certificates;
  let target: ApiPixTarget;
  beforeAll(async () => {
    certs = await certificates();
    target = await nextApp.start('urlSecret', certs);
  });
  afterAll(() => target.close());
  const refused = (name: string): ApiPixCase => ({
    name,
    steps: [{ send: post(apiPixBody([apiPixPix()])), expect: { status: 403, reason: 'address_not_allowed' } }],
    handled: 0,
  });

  it('proxy: even the proxy verdict from 127.0.0.1 is 403 address_not_allowed', () => runCase(refused('proxy'), 'proxy', certs, target));
  it('urlSecret with allowFrom: even the right secret from 127.0.0.1 is 403 address_not_allowed', () =>
    runCase(
      { ...refused('allowFrom'), auth: () => ({ urlSecret: { secret: urlSecret, allowFrom: ['127.0.0.1'] } }) },
      'urlSecret',
      certs,
      target,
    ));
});
