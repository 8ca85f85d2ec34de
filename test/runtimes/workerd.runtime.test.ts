import { afterAll, describe, expect, it } from 'vitest';
import { signed, secret } from '../contract/contract-cases.js';
import { sendHttp } from '../contract/contract-target.js';
import { runRemoteContractSuite } from '../contract/run-contract-suite.js';
import { freePort } from '../helpers/free-port.js';
import { runtimePath } from '../helpers/test-runtimes.js';
import { packedApp, serve, workerdConfig } from './runtime-harness.js';

// pixhook/web from the packed package, bundled with esbuild for the worker conditions and served by
// workerd (the Cloudflare Workers runtime), with the Worker's real ctx.waitUntil in background mode.
const app = packedApp();
afterAll(() => app.dispose());
runRemoteContractSuite('pixhook/web on workerd', async () => {
  const port = await freePort();
  const config = await workerdConfig(app.dir, port);
  return serve(runtimePath('workerd'), ['serve', config, '--experimental'], { cwd: app.dir, port });
});

describe('background mode on workerd', () => {
  it('with ctx.waitUntil the handler runs after the answer; without it the delivery is refused 500, never acknowledged and lost', async () => {
    const port = await freePort();
    const served = await serve(runtimePath('workerd'), ['serve', await workerdConfig(app.dir, port), '--experimental'], {
      cwd: app.dir,
      port,
    });
    try {
      const setup = await fetch(`${served.baseUrl}/_control/setup`, {
        method: 'POST',
        body: JSON.stringify({ options: { secret, mode: 'background' }, handler: 'blocked' }),
      });
      expect(((await setup.json()) as { runtime: string }).runtime).toBe('Cloudflare-Workers');
      const one = signed(JSON.stringify({ event: 'transaction_paid', data: { id: 'tx_wu', status: 'paid', amountInCents: 1 } }));
      const answered = await sendHttp(`${served.baseUrl}/webhooks/pix`, one);
      expect(answered.status).toBe(200);
      const before = (await (await fetch(`${served.baseUrl}/_control/handled`)).json()) as { handled: unknown[] };
      expect(before.handled).toHaveLength(0); // answered before the handler ran
      const after = (await (await fetch(`${served.baseUrl}/_control/drain`, { method: 'POST' })).json()) as { handled: unknown[] };
      expect(after.handled).toHaveLength(1); // and waitUntil kept it alive until it did
      const two = signed(JSON.stringify({ event: 'transaction_paid', data: { id: 'tx_no_ctx', status: 'paid', amountInCents: 1 } }));
      const refused = await sendHttp(`${served.baseUrl}/webhooks/pix-without-ctx`, two);
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'internal_error' });
    } finally {
      await served.close();
    }
  }, 60_000);
});
