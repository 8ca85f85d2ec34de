import { describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createReceiver } from '../../src/index.js';
import { receiveWebRequest } from '../../adapters/web/web-bridge.js';

describe('webBodyReader with a declared length', () => {
  it('still answers 413 when the bytes exceed the limit although the header claims less', async () => {
    const receiver = createReceiver({ secret: 'whsec_web_reader', maxBodyBytes: 10 });
    const request = new Request('http://localhost/webhooks/pix', {
      method: 'POST',
      headers: { 'content-length': '5', 'x-signature': `sha256=${'0'.repeat(64)}` },
      body: 'x'.repeat(100),
    });
    const response = await receiveWebRequest(internalsOf(receiver), request);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'body_too_large' });
  });
});
