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

describe('webBodyReader over the limit: the 413 comes first, the body is let go after it', () => {
  // A body stream whose cancel never settles (a runtime still tearing the connection down): the answer
  // must not wait on it. The stream counts its cancels, so the test proves the body was let go as well.
  function stalledBody(chunks: number): { body: ReadableStream<Uint8Array>; cancels: () => number } {
    let cancels = 0;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(new Uint8Array(8).fill(0x20));
      },
      cancel: () => {
        cancels++;
        return new Promise<void>(() => {});
      },
    });
    return { body, cancels: () => cancels };
  }

  it.each([
    ['a declared length over the limit', { 'content-length': '4096' }],
    ['no declared length, more bytes than the limit', {}],
  ])('%s: 413 body_too_large without waiting for the stream’s cancel', async (_, headers) => {
    const receiver = createReceiver({ secret: 'whsec_web_reader', maxBodyBytes: 10 });
    const { body, cancels } = stalledBody(100);
    const request = new Request('http://localhost/webhooks/pix', {
      method: 'POST',
      headers: { ...headers, 'x-signature': `sha256=${'0'.repeat(64)}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const response = await receiveWebRequest(internalsOf(receiver), request);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'body_too_large' });
    expect(cancels()).toBe(1);
  });
});
