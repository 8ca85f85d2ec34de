// The sources' crypto on an edge runtime (no node:crypto): SHA-256 buffered to its end, HMAC, RSA through Web
// Crypto. Loaded with `EdgeRuntime` set, as Next's edge runtime sets it, so the module takes its Web Crypto path.
import { createHash, createHmac, createSign, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { wooviKeys } from './psp-profiles.js';

type CryptoModule = typeof import('../../src/sources/shared/crypto.js');
let web: CryptoModule;

beforeAll(async () => {
  (globalThis as { EdgeRuntime?: string }).EdgeRuntime = 'edge-runtime';
  vi.resetModules();
  web = await import('../../src/sources/shared/crypto.js');
});
afterAll(() => {
  delete (globalThis as { EdgeRuntime?: string }).EdgeRuntime;
  vi.resetModules();
});

describe('sources on Web Crypto', () => {
  it('hashes chunk by chunk, signs HMAC and verifies RSA as node:crypto does', async () => {
    const digest = web.sha256();
    digest.update('token-');
    digest.update(new TextEncoder().encode('{"a":1}'));
    expect(await web.hexOf(digest.end())).toBe(createHash('sha256').update('token-{"a":1}').digest('hex'));
    expect(await web.hmacSha256Hex('s', 'id:1;ts:2;')).toBe(createHmac('sha256', 's').update('id:1;ts:2;').digest('hex'));
    const key = web.rsaKey(wooviKeys.publicKey);
    const body = new TextEncoder().encode('{"event":"OPENPIX:CHARGE_COMPLETED"}');
    const signature = createSign('RSA-SHA256').update(body).sign(wooviKeys.privateKey);
    expect(await key.verify(body, new Uint8Array(signature))).toBe(true);
    expect(await key.verify(new TextEncoder().encode('{}'), new Uint8Array(signature))).toBe(false);
    expect(() => web.rsaSign(wooviKeys.privateKey, 'x')).toThrow(/node:crypto/);
  });

  it('seeds a SHA-256 once for many digests and decodes hex without Buffer (PagBank on the edge)', async () => {
    const digests = web.seededSha256('token-');
    const one = digests();
    const two = digests();
    one.update('{"a":1}');
    two.update('{"b":2}');
    expect(await web.hexOf(one.end())).toBe(createHash('sha256').update('token-{"a":1}').digest('hex'));
    expect(await web.hexOf(two.end())).toBe(createHash('sha256').update('token-{"b":2}').digest('hex'));
    const hex = createHash('sha256').update('x').digest('hex');
    expect(web.hexBytes(hex.toUpperCase(), 32)).toEqual(new Uint8Array(Buffer.from(hex, 'hex')));
    for (const bad of [hex.slice(1), `${hex}00`, `${hex.slice(2)}g0`]) expect(web.hexBytes(bad, 32)).toBeUndefined();
    const { pagbankSource } = await import('../../src/sources/pagbank/source.js');
    const source = pagbankSource({ psp: 'pagbank', token: 'token' });
    const check = source.bodyCheck!({ headers: { 'x-authenticity-token': createHash('sha256').update('token-{}').digest('hex') } });
    check.update(new TextEncoder().encode('{}'));
    expect(await check.end()).toEqual({ ok: true });
  });

  it('decodes strict base64 without Buffer, as Buffer does, and refuses what atob would', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    for (const length of [9, 8, 7]) {
      const text = Buffer.from(bytes.subarray(0, length)).toString('base64');
      expect(web.base64Bytes(text)).toEqual(new Uint8Array(bytes.subarray(0, length)));
      expect(web.base64Bytes(text.replace(/=+$/, ''))).toEqual(new Uint8Array(bytes.subarray(0, length)));
    }
    for (const bad of ['not base64!', 'abcde', 'ab=c', 'abc==', '']) expect(web.base64Bytes(bad)).toBeUndefined();
  });

  it('Woovi tries each key asynchronously: the second key of a rotation still verifies', async () => {
    const { wooviSource } = await import('../../src/sources/woovi/source.js');
    const { strangerKeys } = await import('./psp-profiles.js');
    const source = wooviSource({ psp: 'woovi', publicKeys: [strangerKeys.publicKey, wooviKeys.publicKey] });
    const body = '{"event":"OPENPIX:CHARGE_COMPLETED"}';
    const good = source.bodyCheck!({
      headers: { 'x-webhook-signature': createSign('RSA-SHA256').update(body).sign(wooviKeys.privateKey, 'base64') },
    });
    good.update(new TextEncoder().encode(body));
    expect(await good.end()).toEqual({ ok: true });
    const bad = source.bodyCheck!({
      headers: { 'x-webhook-signature': createSign('RSA-SHA256').update('{}').sign(wooviKeys.privateKey, 'base64') },
    });
    bad.update(new TextEncoder().encode(body));
    expect(await bad.end()).toMatchObject({ reason: 'signature_mismatch' });
  });

  it('Woovi: deliveries verifying concurrently each try every key, whichever key succeeds first elsewhere', async () => {
    const { wooviSource } = await import('../../src/sources/woovi/source.js');
    const { strangerKeys } = await import('./psp-profiles.js');
    const third = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const pairs = [strangerKeys, wooviKeys, third];
    const source = wooviSource({ psp: 'woovi', publicKeys: pairs.map((pair) => pair.publicKey) });
    const body = '{"event":"OPENPIX:CHARGE_COMPLETED"}';
    const deliver = (privateKey: string) => {
      const check = source.bodyCheck!({
        headers: { 'x-webhook-signature': createSign('RSA-SHA256').update(body).sign(privateKey, 'base64') },
      });
      check.update(new TextEncoder().encode(body));
      return check.end();
    };
    expect(await deliver(wooviKeys.privateKey)).toEqual({ ok: true }); // the second key now goes first
    // Each signed by another key, in flight together: a success moving the first key to try skips none for the others.
    const verdicts = await Promise.all([third, strangerKeys, wooviKeys, third, strangerKeys].map((pair) => deliver(pair.privateKey)));
    expect(verdicts).toEqual(Array.from({ length: 5 }, () => ({ ok: true })));
  });
});
