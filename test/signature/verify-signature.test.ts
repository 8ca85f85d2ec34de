import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signature/verify-signature.js';
import { signBytes } from '../helpers/signing.js';

const body = '{"event":"transaction_paid"}';
const secret = 'whsec_unit';

describe('verifySignature', () => {
  it('accepts a string body as its UTF-8 bytes', async () => {
    expect(await verifySignature({ body, signature: signBytes(body, secret), secret })).toMatchObject({ ok: true });
  });

  it('reports which of several secrets matched', async () => {
    const result = await verifySignature({ body, signature: signBytes(body, 'new'), secret: ['old', 'new'] });
    expect(result).toEqual({ ok: true, secretIndex: 1 });
  });

  it('tolerates surrounding whitespace and an uppercase prefix in the header', async () => {
    const signature = `  ${signBytes(body, secret).replace('sha256=', 'SHA256=')}  `;
    expect((await verifySignature({ body, signature, secret })).ok).toBe(true);
  });

  it('hints at a parsed body when given an object instead of bytes', async () => {
    const parsed = JSON.parse(body) as unknown as string;
    const result = await verifySignature({ body: parsed, signature: signBytes(body, secret), secret });
    expect(result).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(result.ok ? '' : result.hint).toMatch(/body parser .* ran first/);
  });

  it('hints at a secret with surrounding whitespace, without revealing it', async () => {
    const result = await verifySignature({ body, signature: signBytes(body, secret), secret: `${secret}\n` });
    expect(result.ok).toBe(false);
    const text = result.ok ? '' : `${result.message} ${result.hint}`;
    expect(text).toMatch(/whitespace/);
    expect(text).not.toContain(secret);
  });

  it('hints at repeated X-Signature headers that Node joined with ", "', async () => {
    const signature = `${signBytes(body, secret)}, ${signBytes(body, secret)}`;
    const result = await verifySignature({ body, signature, secret });
    expect(result).toMatchObject({ ok: false, reason: 'signature_malformed', hint: expect.stringMatching(/Several X-Signature headers/) });
  });

  it('gives no hint for a plain wrong secret', async () => {
    const result = await verifySignature({ body, signature: signBytes(body, 'other'), secret });
    expect(result).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(result.ok ? 'x' : result.hint).toBeUndefined();
  });

  it.each([
    [undefined, 'signature_missing'],
    [null, 'signature_missing'],
    ['   ', 'signature_missing'],
    ['sha256=', 'signature_malformed'],
    ['sha256', 'signature_malformed'],
    [`sha512=${'a'.repeat(64)}`, 'signature_malformed'],
    [`sha256=${'a'.repeat(128)}`, 'signature_malformed'],
    [`sha256=${'a'.repeat(62)}-_`, 'signature_malformed'],
    [`t=1,v1=${'a'.repeat(64)}`, 'signature_malformed'],
  ])('header %j → %s', async (signature, reason) => {
    const result = await verifySignature({ body, signature, secret });
    expect(result.ok ? 'ok' : result.reason).toBe(reason);
  });
});
