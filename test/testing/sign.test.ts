import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { verifySignature } from '../../src/signature/verify-signature.js';
import { sign, signedRequest, transactionPaid } from '../../src/testing/index.js';

const secret = 'whsec_test';

describe('sign', () => {
  it('is sha256= and the lowercase hex HMAC-SHA256 of the exact bytes', async () => {
    const body = '{"event":"transaction_paid","valor":"ç"}';
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    expect(await sign(body, secret)).toBe(expected);
    expect(await sign(new TextEncoder().encode(body), secret)).toBe(expected);
  });

  it('verifies with the core verifier and fails with another secret', async () => {
    const body = JSON.stringify(transactionPaid({ seed: 1 }));
    const signature = await sign(body, secret);
    expect(await verifySignature({ body, signature, secret })).toMatchObject({ ok: true });
    expect(await verifySignature({ body, signature, secret: 'other' })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });
});

describe('signedRequest', () => {
  it('serializes a payload and signs those bytes, with the gateway headers', async () => {
    const payload = transactionPaid({ seed: 2 });
    const request = await signedRequest(payload, secret);
    expect(request.body).toBe(JSON.stringify(payload));
    expect(new TextDecoder().decode(request.bytes)).toBe(request.body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-signature']).toBe(await sign(request.body, secret));
  });

  it('takes a string as the exact body (pretty-printed stays pretty)', async () => {
    const text = JSON.stringify(transactionPaid({ seed: 3 }), null, 2);
    const request = await signedRequest(text, secret);
    expect(request.body).toBe(text);
  });

  it('lets a test forge the signature, and the receiver rejects it', async () => {
    const request = await signedRequest(transactionPaid({ seed: 4 }), secret, { signature: `sha256=${'0'.repeat(64)}` });
    const receiver = createReceiver({ secret });
    const result = await receiver.receive({ method: 'POST', headers: request.headers, body: request.bytes });
    expect(result).toMatchObject({ status: 401, reason: 'signature_mismatch' });
  });

  it('is accepted by a real receiver, which hands the typed event to its handler', async () => {
    const receiver = createReceiver({ secret });
    const seen: string[] = [];
    receiver.on('transaction_paid', (event) => void seen.push(`${event.transaction.id}:${event.transaction.amountInCents}`));
    const request = await signedRequest(transactionPaid({ id: 'txn_1', amountInCents: 1234, variant: 'b' }), secret, {
      headers: { 'x-request-id': 'r1' },
    });
    expect(request.headers['x-request-id']).toBe('r1');
    const result = await receiver.receive({ method: 'POST', headers: request.headers, body: request.bytes });
    expect(result.status).toBe(200);
    expect(seen).toEqual(['txn_1:1234']);
  });
});
