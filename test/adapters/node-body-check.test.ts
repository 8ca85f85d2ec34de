import { afterEach, describe, expect, it } from 'vitest';
import { sendInParts, split, spyChecks } from '../helpers/send-in-parts.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createReceiver } from '../../src/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// The node adapter hashes the body as it arrives (the receiver's body check): each chunk the server
// reads is fed to the HMAC before the next one is sent, so the chunks are really separate, never by luck.

const secret = 'whsec_node_body_check';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('node:http adapter: the signature hashed as the body arrives', () => {
  it('feeds every chunk to the HMAC as it arrives and answers 200 from the digest ready at the end', async () => {
    const bytes = bytesOf(variantAPaid);
    let handled = 0;
    const receiver = createReceiver({ secret }).onAny(() => void handled++);
    const { fed, nextChunk } = spyChecks(receiver);
    const parts = split(bytes, 3);
    const res = await sendInParts(receiver, parts, { 'x-signature': signBytes(bytes, secret) }, nextChunk, closers);
    expect(res.status).toBe(200);
    expect(fed).toEqual(parts.map((part) => part.byteLength));
    expect(handled).toBe(1);
  });

  it('keeps the exact raw bytes of a chunked body for what reads them after the check (onInvalid here)', async () => {
    const bytes = bytesOf('{"not":"an event" , "x": [1,2,3]}   ');
    const kept: Uint8Array[] = [];
    const receiver = createReceiver({ secret, onInvalid: ({ bytes: given }) => void kept.push(given) });
    const { fed, nextChunk } = spyChecks(receiver);
    const res = await sendInParts(receiver, split(bytes, 4), { 'x-signature': signBytes(bytes, secret) }, nextChunk, closers);
    expect(res.status).toBe(400);
    expect(fed.length).toBe(4);
    expect(Buffer.from(kept[0]!).equals(Buffer.from(bytes))).toBe(true);
  });

  it('refuses a body changed in its last chunk: signature_mismatch from the streamed digest', async () => {
    const bytes = bytesOf(variantAPaid);
    const tampered = Uint8Array.from(bytes);
    tampered[tampered.length - 2] = 0x20;
    const receiver = createReceiver({ secret }).onAny(() => {
      throw new Error('a forged body must never reach a handler');
    });
    const { fed, nextChunk } = spyChecks(receiver);
    const res = await sendInParts(receiver, split(tampered, 2), { 'x-signature': signBytes(bytes, secret) }, nextChunk, closers);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'signature_mismatch' });
    expect(fed.length).toBe(2);
  });

  it('refuses a chunked body over the limit the same way: 413 body_too_large, the extra bytes never hashed', async () => {
    const bytes = bytesOf(variantAPaid);
    const parts = split(bytes, 6);
    const size = parts[0]!.byteLength;
    // Two chunks fit, the third passes the limit.
    const receiver = createReceiver({ secret, maxBodyBytes: 2 * size + 1 });
    const { fed, nextChunk } = spyChecks(receiver);
    // Past the limit the adapter stops feeding: only the two chunks within it wake the sender.
    let calls = 0;
    const ready = () => (++calls <= 2 ? nextChunk() : Promise.resolve());
    const res = await sendInParts(receiver, parts, { 'x-signature': signBytes(bytes, secret) }, ready, closers);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'body_too_large' });
    expect(fed).toEqual([size, size]);
  });

  it('a missing signature starts no hash and is answered as before: 401 signature_missing', async () => {
    const bytes = bytesOf(variantAPaid);
    const receiver = createReceiver({ secret });
    const { fed } = spyChecks(receiver);
    const res = await sendInParts(receiver, [bytes], {}, () => Promise.resolve(), closers);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'signature_missing' });
    expect(fed).toEqual([]);
  });

  it('offers no body check where the signature covers more than the body (timestamped) or is verified in a span (telemetry)', () => {
    const receiver = createReceiver({ secret, signature: { scheme: 'timestamped', header: 'x-pix-signature' } });
    expect(internalsOf(receiver).bodyCheck).toBeUndefined();
    expect(internalsOf(createReceiver({ secret, telemetry: openTelemetry() })).bodyCheck).toBeUndefined();
    expect(internalsOf(createReceiver({ secret })).bodyCheck).toBeTypeOf('function');
  });
});
