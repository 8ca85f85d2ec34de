import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeHex } from '../../src/signature/hex.js';
import { hmacVerifySync, webVerify } from '../../src/signature/hmac-sha256.js';
import { verifySignature } from '../../src/signature/verify-signature.js';
import { signBytes } from '../helpers/signing.js';

// Secrets pixhook accepts: not only whitespace or NULs, not the text of an unset variable (see refused-secrets.test.ts).
const secretArb = fc
  .string({ minLength: 1, maxLength: 40 })
  .filter((s) => !/^[\s\0]*$/.test(s) && !['undefined', 'null'].includes(s.trim().toLowerCase()));
const bodyArb = fc.uint8Array({ maxLength: 2048 });

describe('verifySignature properties', () => {
  it('uses node:crypto on Node', () => {
    expect(hmacVerifySync).toBeTypeOf('function');
  });

  it('any signed bytes verify', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, async (body, secret) => {
        const result = await verifySignature({ body, signature: signBytes(body, secret), secret });
        expect(result).toEqual({ ok: true, secretIndex: 0 });
      }),
      { numRuns: 300 },
    );
  });

  it('flipping any bit of any body byte fails with signature_mismatch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 1024 }),
        secretArb,
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (body, secret, at, bit) => {
          const signature = signBytes(body, secret);
          const flipped = new Uint8Array(body);
          const i = at % flipped.length;
          flipped[i] = flipped[i]! ^ (1 << bit);
          const result = await verifySignature({ body: flipped, signature, secret });
          expect(result.ok ? 'ok' : result.reason).toBe('signature_mismatch');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('changing any hex digit of the signature fails with signature_mismatch', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        secretArb,
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 15 }),
        async (body, secret, at, delta) => {
          const signature = signBytes(body, secret);
          const hex = signature.slice(7);
          const digit = ((Number.parseInt(hex[at]!, 16) + delta) % 16).toString(16);
          const changed = `sha256=${hex.slice(0, at)}${digit}${hex.slice(at + 1)}`;
          const result = await verifySignature({ body, signature: changed, secret });
          expect(result.ok ? 'ok' : result.reason).toBe('signature_mismatch');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the Web Crypto verifier accepts and refuses exactly what the node:crypto one does', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, fc.boolean(), async (body, secret, tamper) => {
        const hex = signBytes(body, secret).slice(7);
        const given = decodeHex(hex)!;
        if (tamper) given[0] = given[0]! ^ 1;
        const viaNode = await verifySignature({ body, signature: `sha256=${Buffer.from(given).toString('hex')}`, secret });
        expect(await webVerify(secret, body, given)).toBe(viaNode.ok);
      }),
      { numRuns: 200 },
    );
  });
});
