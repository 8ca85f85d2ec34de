import { describe, expect, it } from 'vitest';
import { sendHttp } from '../contract/contract-target.js';
import { variantAPaid } from '../contract/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { deliverScenario, exampleSecret, requireBuiltPackage, startExample } from './example-process.js';

// Each example runs as its own `node examples/<name>/server.js` process, importing the built package.
describe.each(['express', 'fastify', 'hono', 'node-http'])('examples/%s', (name) => {
  it('answers signed deliveries, a retry and a forgery over HTTP and prints each event once', async () => {
    await requireBuiltPackage();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks/pix`;
    const example = await startExample({
      command: process.execPath,
      args: [`examples/${name}/server.js`],
      env: { PORT: String(port), PIXHOOK_SECRET: exampleSecret },
      waitFor: url,
    });
    try {
      await deliverScenario(url, example);
      // A postbackUrl with a query string (`?token=…`) is still the webhook path.
      const body = bytesOf(variantAPaid);
      const withQuery = await sendHttp(`${url}?token=tok_query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, exampleSecret) },
        body,
      });
      expect(withQuery.status).toBe(200);
      if (name === 'fastify') {
        // The sibling route still gets Fastify's JSON parsing.
        const sibling = await sendHttp(`http://127.0.0.1:${port}/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: new TextEncoder().encode('{"order":42}'),
        });
        expect(JSON.parse(sibling.body)).toEqual({ received: { order: 42 } });
      }
    } finally {
      await example.stop();
    }
  });
});
