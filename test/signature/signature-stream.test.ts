import { describe, expect, it } from 'vitest';
import { startSignatureStream } from '../../src/signature/signature-stream.js';
import { verifySignature } from '../../src/signature/verify-signature.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const body = bytesOf('{"event":"transaction_paid","data":{"id":"tx_stream","amountInCents":1990}}');
const secret = 'whsec_stream';

/** The body fed in `parts` chunks, as an adapter feeds a stream. */
function streamed(signature: string | undefined, secrets: readonly string[], bytes: Uint8Array, parts: number) {
  const stream = startSignatureStream(signature, secrets);
  if (stream === undefined) return undefined;
  const size = Math.ceil(bytes.byteLength / parts);
  for (let at = 0; at < bytes.byteLength; at += size) stream.update(bytes.subarray(at, at + size));
  return stream.end();
}

describe('startSignatureStream', () => {
  it('gives the whole-body verdict over a body fed chunk by chunk', async () => {
    for (const parts of [1, 2, 7, body.byteLength]) {
      expect(streamed(signBytes(body, secret), [secret], body, parts)).toEqual(
        await verifySignature({ body, signature: signBytes(body, secret), secret: [secret] }),
      );
    }
  });

  it('refuses a body that differs in one byte, with the whole-body message and hint', async () => {
    const tampered = Uint8Array.from(body);
    tampered[tampered.length - 3] = 0x21;
    const signature = signBytes(body, secret);
    const expected = await verifySignature({ body: tampered, signature, secret: [secret, ' spaced '] });
    expect(expected).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(streamed(signature, [secret, ' spaced '], tampered, 3)).toEqual(expected);
  });

  it('tells which of several secrets matched', () => {
    expect(streamed(signBytes(body, 'new'), ['old', 'new'], body, 4)).toEqual({ ok: true, secretIndex: 1 });
    expect(streamed(signBytes(body, 'old'), ['old', 'new'], body, 4)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('starts nothing for a missing or malformed header: the whole-body verifier answers those', () => {
    expect(startSignatureStream(undefined, [secret])).toBeUndefined();
    expect(startSignatureStream('sha256=zz', [secret])).toBeUndefined();
    expect(startSignatureStream(`${signBytes(body, secret)}, ${signBytes(body, secret)}`, [secret])).toBeUndefined();
    expect(startSignatureStream(signBytes(body, secret), [])).toBeUndefined();
  });
});
