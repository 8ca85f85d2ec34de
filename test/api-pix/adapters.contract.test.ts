// The API Pix profile's contract on the core and on every adapter over real HTTP, in each auth mode the
// adapter can serve: urlSecret and proxy everywhere a peer address is known, mtls over real TLS where Node
// terminates it (node:http, Express 4 and 5, Fastify).
import { beforeAll, describe, expect, it } from 'vitest';
import { createAppRouteHandler } from '../../adapters/next/index.js';
import { createApiPixReceiver, type ApiPixReceiverOptions } from '../../src/api-pix/index.js';
import { PixhookConfigError } from '../../src/index.js';
import { adapters, certificates, type Certificates } from './api-pix-targets.js';
import { proxySecret, urlSecret } from './fixtures.js';
import { runApiPixContract } from './run-api-pix-contract.js';

for (const adapter of adapters) for (const mode of adapter.modes) runApiPixContract(adapter, mode);

// The App Router gives a route handler no socket, so no peer address: a receiver whose auth decides on the
// address is refused when the handler is made unless the app says where the address comes from.
describe('API Pix on the Next.js App Router, which hands a route no peer address', () => {
  let certs: Certificates;
  beforeAll(async () => {
    certs = await certificates();
  });
  const receiverWith = (auth: ApiPixReceiverOptions['auth']) => createApiPixReceiver({ auth });

  it('proxy without clientAddress is refused when made, naming the option', () => {
    expect(() => createAppRouteHandler(receiverWith({ proxy: { from: ['127.0.0.1'], secret: proxySecret } }))).toThrow(PixhookConfigError);
    expect(() => createAppRouteHandler(receiverWith({ proxy: { from: ['127.0.0.1'], secret: proxySecret } }))).toThrow(
      /^pixhook: `clientAddress` is required/,
    );
  });
  it('urlSecret with allowFrom without clientAddress is refused; without allowFrom it is served', () => {
    expect(() => createAppRouteHandler(receiverWith({ urlSecret: { secret: urlSecret, allowFrom: ['127.0.0.1'] } }))).toThrow(
      /`clientAddress` is required/,
    );
    expect(typeof createAppRouteHandler(receiverWith({ urlSecret: { secret: urlSecret } }))).toBe('function');
  });
  it('a deferred receiver is checked on its first request', async () => {
    const handler = createAppRouteHandler(() => receiverWith({ proxy: { from: ['127.0.0.1'], secret: proxySecret } }));
    await expect(handler(new Request('http://127.0.0.1/pix', { method: 'POST', body: '{}' }))).rejects.toThrow(
      /`clientAddress` is required/,
    );
  });
  it('mtls is refused, pointing at proxy with clientAddress', () => {
    expect(() => createAppRouteHandler(receiverWith({ mtls: { ca: certs.pspCa.cert } }))).toThrow(
      /use `auth: \{ proxy: \{ from: \[\.\.\.\], secret \} \}` instead with `createAppRouteHandler\(receiver, \{ clientAddress \}\)`/,
    );
  });
  it('clientAddress must be a function', () => {
    expect(() =>
      createAppRouteHandler(receiverWith({ urlSecret: { secret: urlSecret } }), { clientAddress: 'x' as unknown as () => string }),
    ).toThrow(/^pixhook: `clientAddress` must be a function/);
  });
});
