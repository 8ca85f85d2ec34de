// Mercado Pago (mercadopago/devsite-docs guides/additional-content/your-integrations/webhooks.en.md): the
// manifest, the signature recomputed here from the documented algorithm with node:crypto (not our code),
// the ts bound, the id from the query with its case kept, the IPN form as the same payment.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPspReceiver } from '../../src/psp/index.js';
import { mercadoPagoSource } from '../../src/sources/mercado-pago/source.js';
import { sourceReaders } from '../../src/sources/readers.js';

import { sourceKey } from '../../src/sources/keys.js';
import { PixhookConfigError, type PixEvent } from '../../src/index.js';
import { mercadoPagoManifest, pspSamples, signMercadoPago } from '../../src/testing/index.js';
import { startConfirmationServer, type ConfirmationServer } from './confirmation-server.js';
import { mpAccessToken, mpSecret } from './psp-profiles.js';

/** A fetched payment read again as a replay reads it (the registry's reader, no network). */
const rereadMp = (record: Record<string, unknown>) => sourceReaders['mercado-pago'].readBody(record, 'replay')?.[0];

const documented = (secret: string, manifest: string) => createHmac('sha256', secret).update(manifest).digest('hex');

describe('Mercado Pago: the signed manifest', () => {
  it('is id;request-id;ts; with a missing part left out, as documented', () => {
    expect(mercadoPagoManifest('123', 'req', '1704908010')).toBe('id:123;request-id:req;ts:1704908010;');
    expect(mercadoPagoManifest(undefined, 'req', '1')).toBe('request-id:req;ts:1;');
    expect(mercadoPagoManifest('123', undefined, '1')).toBe('id:123;ts:1;');
  });

  it('signs v1 as HMAC-SHA256 hex of the manifest (vector computed with node:crypto), keeping an ORD… id’s case', async () => {
    for (const dataId of ['123456789', 'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3']) {
      const signed = await signMercadoPago({
        secret: 'your-secret',
        dataId,
        requestId: 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e',
        ts: 1742505638,
      });
      const v1 = documented('your-secret', `id:${dataId};request-id:bb56a2f1-6aae-46ac-982e-9dcd3581d08e;ts:1742505638;`);
      expect(signed.headers['x-signature']).toBe(`ts=1742505638,v1=${v1}`);
      expect(signed.query).toBe(`?data.id=${dataId}&type=payment`);
    }
  });

  const now = 1_742_505_638_000;
  const source = mercadoPagoSource({ psp: 'mercado-pago', secret: 's', accessToken: 't' }, () => now);
  const head = (dataId: string | undefined, signature: string, requestId = 'r1') => ({
    headers: { 'x-signature': signature, 'x-request-id': requestId },
    url: dataId === undefined ? '/hook' : `/hook?data.id=${dataId}&type=payment`,
  });
  const sig = (manifest: string, ts = '1742505638') => `ts=${ts},v1=${documented('s', manifest)}`;

  it('verifies against the query’s data.id, case kept: the lower-cased id does not match', async () => {
    expect(await source.authenticate(head('ORD1AB', sig('id:ORD1AB;request-id:r1;ts:1742505638;')))).toEqual({ ok: true });
    expect(await source.authenticate(head('ORD1AB', sig('id:ord1ab;request-id:r1;ts:1742505638;')))).toMatchObject({
      reason: 'signature_mismatch',
    });
    // Replayed with another id in the query: the manifest changes.
    expect(await source.authenticate(head('ORD1AC', sig('id:ORD1AB;request-id:r1;ts:1742505638;')))).toMatchObject({
      reason: 'signature_mismatch',
    });
    // No data.id in the query: the part is left out of the manifest.
    expect(await source.authenticate(head(undefined, sig('request-id:r1;ts:1742505638;')))).toEqual({ ok: true });
  });

  it('reads ts in seconds (milliseconds above 10¹¹) and refuses one older than 24 h or more than 300 s ahead', async () => {
    const at = (ts: number) => head('1', sig(`id:1;request-id:r1;ts:${String(ts)};`, String(ts)));
    expect(await source.authenticate(at(now / 1000 - 86_400))).toEqual({ ok: true });
    expect(await source.authenticate(at(now / 1000 - 86_401))).toMatchObject({ reason: 'signature_expired' });
    expect(await source.authenticate(at(now / 1000 + 301))).toMatchObject({ reason: 'signature_expired' });
    expect(await source.authenticate(at(now - 7_200_000))).toEqual({ ok: true }); // 2 h ago, in ms: Mercado Pago's late resend
  });

  it('refuses a missing or malformed header', async () => {
    expect(await source.authenticate({ headers: {}, url: '/h?data.id=1' })).toMatchObject({ ok: false, reason: 'signature_missing' });
    expect(await source.authenticate(head('1', 'ts=1,v1=zz'))).toMatchObject({ reason: 'signature_mismatch' });
  });

  it('reads the documented notification as a hint; a body naming another id than the query is refused', () => {
    const read = source.read(pspSamples.mercadoPago.notification, { headers: {}, url: '/h?data.id=999999999&type=payment' });
    expect(read.hints.map((h) => h.id)).toEqual(['999999999']);
    expect(source.read(pspSamples.mercadoPago.notification, { headers: {}, url: '/h?data.id=1' }).failures[0]?.path).toBe('data.id');
    // The IPN form: ?topic=payment&id=…
    expect(source.read({}, { headers: {}, url: '/h?topic=payment&id=999999999' }).hints.map((h) => h.id)).toEqual(['999999999']);
    // Another topic (a merchant_order) is not a payment: nothing to read.
    expect(source.read({ type: 'merchant_order', data: { id: '5' } }, { headers: {}, url: '/h?data.id=5&type=merchant_order' })).toEqual({
      events: [],
      hints: [],
      failures: [],
    });
    expect(source.read({}, { headers: {}, url: '/h' }).failures).toHaveLength(1);
  });

  it('reads the documented payment: approved is transaction_paid, R$ 10,50 is exactly 1050 cents', () => {
    const event = rereadMp(pspSamples.mercadoPago.payment) as Extract<PixEvent, { kind: 'transaction' }>;
    expect(event).toMatchObject({ name: 'transaction_paid', provider: 'mercado-pago', source: 'replay', variant: 'psp' });
    expect(event.transaction).toMatchObject({
      id: '999999999',
      status: 'paid',
      amountInCents: 1050,
      netAmountInCents: 1040,
      payer: { document: '19119119100' },
    });
    expect(sourceKey(event)).toBe('mercado-pago:transaction_paid:999999999:paid:1050');
    expect(rereadMp({ id: 1, status: 'refunded', transaction_amount: 0.29, transaction_amount_refunded: 0.29 })).toMatchObject({
      name: 'transaction_refunded',
      transaction: { amountInCents: 29, refund: { amountInCents: 29 } },
    });
    expect(rereadMp({ id: 1, status: 'weird', transaction_amount: 1 })).toBeUndefined();
  });

  it('refuses bad options by name', () => {
    expect(() => mercadoPagoSource({ psp: 'mercado-pago', secret: '', accessToken: 't' })).toThrow(/`secret` is required/);
    expect(() => mercadoPagoSource({ psp: 'mercado-pago', secret: 's', accessToken: 't', toleranceSeconds: 0 })).toThrow(
      PixhookConfigError,
    );
    expect(() => mercadoPagoSource({ psp: 'mercado-pago', secret: 's', accessToken: 't', apiBaseUrl: 'ftp://x' })).toThrow(/`apiBaseUrl`/);
  });
});

describe('Mercado Pago end to end through the core: the webhook and the IPN are one payment', () => {
  let server: ConfirmationServer;
  beforeAll(async () => {
    server = await startConfirmationServer({ header: 'authorization', value: `Bearer ${mpAccessToken}` });
  });
  afterAll(() => server.close());

  it('fetches with the access token; the IPN form of the same payment is a duplicate; a 404 is kept, a hang is 503', async () => {
    const kept: string[] = [];
    const paid: PixEvent[] = [];
    const receiver = createPspReceiver({
      psp: 'mercado-pago',
      secret: mpSecret,
      accessToken: mpAccessToken,
      apiBaseUrl: server.url,
      fetchTimeoutMs: 10_000, // generous: a loaded machine must not turn a served fetch into a timeout
    })
      .on('transaction_paid', (event) => void paid.push(event))
      .onInvalid((delivery) => void kept.push(delivery.message));
    server.set('/v1/payments/ORD9', { ...pspSamples.mercadoPago.payment, id: 'ORD9' });
    const signed = await signMercadoPago({ secret: mpSecret, dataId: 'ORD9' });
    const send = (url: string, headers: Record<string, string>, body = '{}') => receiver.receive({ method: 'POST', headers, body, url });
    expect((await send(`/mp${signed.query}`, signed.headers, JSON.stringify({ type: 'payment', data: { id: 'ORD9' } }))).status).toBe(200);
    expect(server.seen.at(-1)).toEqual({ path: '/v1/payments/ORD9', credential: `Bearer ${mpAccessToken}` });
    const ipn = await signMercadoPago({ secret: mpSecret, dataId: 'ORD9' });
    const answer = await send('/mp?topic=payment&id=ORD9', ipn.headers);
    expect(answer.status).toBe(401); // the IPN's query has no data.id: its manifest differs from one signed with it
    const ipnSigned = `ts=${ipn.headers['x-signature'].slice(3, ipn.headers['x-signature'].indexOf(','))}`;
    const ts = ipnSigned.slice(3);
    const v1 = documented(mpSecret, `request-id:${ipn.headers['x-request-id']};ts:${ts};`);
    const duplicate = await send('/mp?topic=payment&id=ORD9', {
      'x-signature': `ts=${ts},v1=${v1}`,
      'x-request-id': ipn.headers['x-request-id'],
    });
    expect(duplicate.status).toBe(200);
    expect(JSON.parse(duplicate.body)).toMatchObject({ reason: 'duplicate' });
    expect(paid).toHaveLength(1);

    const missing = await signMercadoPago({ secret: mpSecret, dataId: 'NOPE' });
    expect((await send(`/mp${missing.query}`, missing.headers)).status).toBe(200);
    expect(kept).toEqual([expect.stringMatching(/not found at mercado-pago/)]);
    // The hang never answers, so a short bound is deterministic here: a receiver of its own with 200 ms.
    const hasty = createPspReceiver({
      psp: 'mercado-pago',
      secret: mpSecret,
      accessToken: mpAccessToken,
      apiBaseUrl: server.url,
      fetchTimeoutMs: 200,
    });
    server.fail(1, 'hang');
    const hung = await hasty.receive({ method: 'POST', headers: signed.headers, body: '{}', url: `/mp${signed.query}` });
    expect(hung.status).toBe(503);
    expect(hung.hint).toMatch(/timeout/);
    await Promise.all([receiver.close(), hasty.close()]);
  });
});
