import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../adapters/web/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createReceiver, type Receiver, type ReceiveRequest } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_web_read_first';
const bytes = bytesOf(variantAPaid);

/** What the fetch handler hands the core, per request. */
function spyHandle(receiver: Receiver): ReceiveRequest[] {
  const internals = internalsOf(receiver) as { handle: (request: ReceiveRequest) => unknown };
  const handle = internals.handle;
  const seen: ReceiveRequest[] = [];
  internals.handle = (request) => {
    seen.push({ ...request });
    return handle(request);
  };
  return seen;
}

const post = (body: Uint8Array<ArrayBuffer>, headers: Record<string, string>, method = 'POST') =>
  new Request('http://127.0.0.1/webhooks/pix', { method, headers, ...(method === 'POST' && { body }) });

describe('fetch handler: a signed body read before the core', () => {
  it('hands the gateway receiver the bytes in hand, answered in one pass', async () => {
    let handled = 0;
    const receiver = createReceiver({ secret }).onAny(() => void handled++);
    const seen = spyHandle(receiver);
    const res = await createFetchHandler(receiver)(post(bytes, { 'x-signature': signBytes(bytes, secret) }));
    expect(res.status).toBe(200);
    expect(handled).toBe(1);
    expect(seen[0]!.body).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(seen[0]!.body as Uint8Array).equals(Buffer.from(bytes))).toBe(true);
  });

  it('reads nothing for anything but POST, and a body over the limit is refused as before', async () => {
    const receiver = createReceiver({ secret, maxBodyBytes: 64 });
    const seen = spyHandle(receiver);
    const handler = createFetchHandler(receiver);
    const put = await handler(new Request('http://127.0.0.1/webhooks/pix', { method: 'PUT', body: bytes }));
    expect(put.status).toBe(405);
    expect(typeof seen[0]!.body).toBe('function');
    const large = await handler(post(bytes, { 'x-signature': signBytes(bytes, secret) }));
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: 'body_too_large' });
  });

  it('leaves the reading to a receiver that judges the request before its body (a PSP source)', async () => {
    const receiver = createPspReceiver({ psp: 'asaas', token: 'asaas-token-for-web-read-first' });
    const seen = spyHandle(receiver);
    const res = await createFetchHandler(receiver)(post(bytes, { 'asaas-access-token': 'wrong' }));
    expect(res.status).toBe(401);
    expect(typeof seen[0]!.body).toBe('function');
  });
});
