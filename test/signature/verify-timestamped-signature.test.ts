import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { PixhookConfigError } from '../../src/index.js';
import { createReceiver } from '../../src/index.js';
import { verifyTimestampedSignature } from '../../src/signature/verify-timestamped-signature.js';
import { serverTarget } from '../contract/contract-target.js';
import { variantBPaid } from '../contract/fixtures.js';
import { bytesOf } from '../helpers/signing.js';

const secret = 'whsec_brand_ts';
const body = bytesOf(variantBPaid);
const now = 1_790_000_000_000;
const t = String(now / 1000);

function v1(timestamp: string, bytes: Uint8Array, withSecret = secret): string {
  return createHmac('sha256', withSecret).update(`${timestamp}.`).update(bytes).digest('hex');
}

const verify = (signature: string | undefined, extra: { secret?: string | string[]; toleranceSeconds?: number } = {}) =>
  verifyTimestampedSignature({ body, signature, secret: extra.secret ?? secret, now: () => now, toleranceSeconds: extra.toleranceSeconds });

describe('verifyTimestampedSignature (t=…,v1=…)', () => {
  it('accepts HMAC("t.body") with the timestamp in tolerance', async () => {
    expect(await verify(`t=${t},v1=${v1(t, body)}`)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('accepts any of several v1 values and any of several secrets', async () => {
    const header = `t=${t}, v1=${'0'.repeat(64)}, v1=${v1(t, body, 'second')}`;
    expect(await verify(header, { secret: ['first', 'second'] })).toEqual({ ok: true, secretIndex: 1 });
  });

  it.each([
    [undefined, 'signature_missing'],
    ['', 'signature_missing'],
    [`v1=${'a'.repeat(64)}`, 'signature_malformed'],
    [`t=${t}`, 'signature_malformed'],
    [`t=abc,v1=${'a'.repeat(64)}`, 'signature_malformed'],
    [`t=${t},v1=${'a'.repeat(63)}`, 'signature_malformed'],
    [`sha256=${'a'.repeat(64)}`, 'signature_malformed'],
  ])('header %j → %s', async (header, reason) => {
    const result = await verify(header);
    expect(result.ok ? 'ok' : result.reason).toBe(reason);
  });

  it('refuses a timestamp outside the tolerance, old or future, as signature_expired', async () => {
    const old = String(now / 1000 - 301);
    const future = String(now / 1000 + 301);
    for (const ts of [old, future]) {
      const result = await verify(`t=${ts},v1=${v1(ts, body)}`);
      expect(result.ok ? 'ok' : result.reason).toBe('signature_expired');
    }
    expect((await verify(`t=${old},v1=${v1(old, body)}`, { toleranceSeconds: 600 })).ok).toBe(true);
  });

  it('refuses a changed timestamp, a tampered body and a wrong secret as signature_mismatch', async () => {
    const other = String(now / 1000 - 1);
    const tampered = bytesOf(JSON.stringify(variantBPaid).replace('2500', '2501'));
    for (const header of [`t=${other},v1=${v1(t, body)}`, `t=${t},v1=${v1(t, tampered)}`, `t=${t},v1=${v1(t, body, 'wrong')}`]) {
      const result = await verify(header);
      expect(result.ok ? 'ok' : result.reason).toBe('signature_mismatch');
    }
  });
});

describe('receiver with signature: { scheme: "timestamped" }', () => {
  it('verifies the brand header over real HTTP through Express, and ignores X-Signature', async () => {
    const handled: string[] = [];
    const receiver = createReceiver({ secret, signature: { scheme: 'timestamped', header: 'Vexy-Signature' } }).onAny(
      (e) => void handled.push(e.name),
    );
    const app = express();
    app.post('/hook', createExpressMiddleware(receiver));
    const target = await serverTarget(createServer(app), '/hook');
    try {
      const fresh = String(Math.floor(Date.now() / 1000));
      const ok = await target.send({ method: 'POST', headers: { 'vexy-signature': `t=${fresh},v1=${v1(fresh, body)}` }, body });
      const stale = String(Math.floor(Date.now() / 1000) - 3600);
      const expired = await target.send({ method: 'POST', headers: { 'vexy-signature': `t=${stale},v1=${v1(stale, body)}` }, body });
      const wrongHeader = await target.send({ method: 'POST', headers: { 'x-signature': `t=${fresh},v1=${v1(fresh, body)}` }, body });
      expect([ok.status, expired.status, JSON.parse(expired.body).error, JSON.parse(wrongHeader.body).error]).toEqual([
        200,
        401,
        'signature_expired',
        'signature_missing',
      ]);
      expect(handled).toEqual(['transaction_paid']);
    } finally {
      await target.close();
    }
  });

  it('refuses a timestamped scheme without a header', () => {
    expect(() => createReceiver({ secret, signature: { scheme: 'timestamped', header: '' } })).toThrow(PixhookConfigError);
  });

  it('reads a custom header name for the sha256 scheme', async () => {
    const receiver = createReceiver({ secret, signature: { scheme: 'sha256', header: 'X-Pix-Signature' } });
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    expect((await receiver.receive({ headers: { 'x-pix-signature': signature }, body })).status).toBe(200);
  });
});
