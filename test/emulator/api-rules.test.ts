import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { customer } from '../helpers/customer.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

async function setup(options: EmulatorOptions = {}) {
  emulator = await startEmulator({ apiKey: 'pk_test', apiSecret: 'sk_test', ...options });
  const base = emulator.url;
  const basic = `Basic ${Buffer.from('pk_test:sk_test').toString('base64')}`;
  const auth = await fetch(`${base}/api/auth`, { method: 'POST', headers: { authorization: basic } });
  const { token } = (await auth.json()) as { token: string };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  return { base, basic, call, emulator };
}

describe('emulator: authentication', () => {
  it('issues a 30-minute Bearer JWT for Basic credentials', async () => {
    const { base, basic } = await setup();
    const response = await fetch(`${base}/api/auth`, { method: 'POST', headers: { authorization: basic } });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ success: true, tokenType: 'Bearer', expiresIn: 1_800_000 });
    expect(String(body['token']).split('.')).toHaveLength(3);
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
  });

  it('answers 401 UNAUTHORIZED for wrong credentials, a missing, forged or expired token', async () => {
    let now = Date.now();
    const { base, call } = await setup({ now: () => now });
    const wrong = await fetch(`${base}/api/auth`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('pk_test:nope').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    expect((await fetch(`${base}/api/v1/company`)).status).toBe(401);
    const forged = await fetch(`${base}/api/v1/company`, { headers: { authorization: 'Bearer a.b.c' } });
    expect(forged.status).toBe(401);
    expect((await call('GET', '/api/v1/company')).status).toBe(200);
    now += 30 * 60_000;
    expect(await call('GET', '/api/v1/company')).toMatchObject({ status: 401, body: { error: 'UNAUTHORIZED' } });
  });

  it('refuses a body on the authentication operation, and limits it to 5 a minute', async () => {
    const { base, basic } = await setup();
    const withBody = await fetch(`${base}/api/auth`, { method: 'POST', headers: { authorization: basic }, body: '{}' });
    expect(withBody.status).toBe(400);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await fetch(`${base}/api/auth`, { method: 'POST', headers: { authorization: basic } })).status);
    // One was taken by setup, one by the body test.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

describe('emulator: authentication limits', () => {
  const auth = (base: string, key: string, secret: string) =>
    fetch(`${base}/api/auth`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}` },
    }).then((r) => r.status);

  it('Variant A counts per IP: wrong secrets use up the allowance, so guessing is limited', async () => {
    const { base, emulator } = await setup();
    const { apiKey, apiSecret } = emulator.credentials;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await auth(base, apiKey, `guess-${i}`));
    statuses.push(await auth(base, 'another_key', 'x'));
    // setup() took one call; the right secret is now over the 5 a minute as well.
    expect([...statuses, await auth(base, apiKey, apiSecret)]).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('Variant B counts per IP and API key: another key has its own allowance', async () => {
    const { base, emulator } = await setup({ variant: 'b' });
    const { apiKey, apiSecret } = emulator.credentials;
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await auth(base, apiKey, `guess-${i}`));
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(await auth(base, apiKey, apiSecret)).toBe(429);
    expect(await auth(base, 'another_key', 'x')).toBe(401);
  });
});

describe('emulator: rules', () => {
  it('Variant A limits every query together: 100 a minute across company, transaction and webhook reads', async () => {
    const { call } = await setup();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await call('GET', '/api/v1/company')).status);
    for (let i = 0; i < 40; i++) statuses.push((await call('GET', '/api/v1/webhook')).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await call('GET', '/api/v1/transactions/txn_missing')).status).toBe(429);
  });

  it('answers validation errors as 400 INVALID_REQUEST naming the field', async () => {
    const { call } = await setup();
    const response = await call('POST', '/api/v1/pix/in/qrcode', { amountInCents: 100, customer: { ...customer, document: '123' } });
    expect(response).toMatchObject({ status: 400, body: { error: 'INVALID_REQUEST', details: { field: 'customer.document' } } });
    expect((await call('POST', '/api/v1/pix/in/qrcode', { amountInCents: 100 })).body).toMatchObject({ details: { field: 'customer' } });
  });

  it('answers the Variant B nested error body and RATE_LIMIT_EXCEEDED with its headers', async () => {
    const { call } = await setup({ variant: 'b', rateLimits: { sendTransfer: 1 } });
    const transfer = { pixKey: 'ana@example.com', pixKeyType: 'EMAIL', amountInCents: 10 };
    expect((await call('POST', '/api/v1/pix/out/pixkey', transfer, { 'Idempotency-Key': 'k1' })).status).toBe(200);
    const limited = await call('POST', '/api/v1/pix/out/pixkey', transfer, { 'Idempotency-Key': 'k2' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', details: { limit: 1, window: 60 } } });
    expect(typeof limited.body['timestamp']).toBe('string');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('requires an idempotency key on transfers and accepts only BRL', async () => {
    const { call } = await setup();
    const body = { pixKey: 'ana@example.com', amount: 10, currency: 'BRL' };
    expect(await call('POST', '/api/v1/pix/out/pixkey', body)).toMatchObject({
      status: 400,
      body: { details: { field: 'x-idempotency-key' } },
    });
    expect(await call('POST', '/api/v1/pix/out/pixkey', { ...body, currency: 'USD' }, { 'x-idempotency-key': 'k' })).toMatchObject({
      status: 400,
      body: { details: { field: 'currency' } },
    });
    const ok = await call('POST', '/api/v1/pix/out/pixkey', body, { 'x-idempotency-key': 'k' });
    expect(ok.body['data']).toMatchObject({ status: 'queued', amount: 10, netAmount: 10, fees: 0, pixKey: 'ana@example.com' });
  });

  it('pays (twice, too), refunds and expires only from the right state', async () => {
    const { base, call } = await setup();
    const created = await call('POST', '/api/v1/pix/in/qrcode', { amountInCents: 100, customer });
    const id = (created.body['data'] as { id: string }).id;
    const control = async (action: string) => (await fetch(`${base}/_emulator/transactions/${id}/${action}`, { method: 'POST' })).status;
    expect(await control('refund')).toBe(422);
    expect(await control('pay')).toBe(200);
    // A second payment is possible (issue 22: a duplicate payment); a refunded charge cannot be paid.
    expect(await control('pay')).toBe(200);
    expect(await control('expire')).toBe(422);
    expect(await control('refund')).toBe(200);
    expect(await control('pay')).toBe(422);
    expect((await call('GET', `/api/v1/transactions/${id}`)).body).toMatchObject({
      id,
      status: 'refunded',
      refund: { amountInCents: 100 },
    });
    expect(await fetch(`${base}/_emulator/transactions/txn_nope/pay`, { method: 'POST' })).toMatchObject({ status: 404 });
  });

  it('expires to `canceled` in Variant A and `expired` in Variant B', async () => {
    for (const variant of ['a', 'b'] as const) {
      const { call, emulator: emu } = await setup({ variant });
      const created = await call('POST', '/api/v1/pix/in/qrcode', { amountInCents: 100, customer });
      expect(emu.expire((created.body['data'] as { id: string }).id).status).toBe(variant === 'a' ? 'canceled' : 'expired');
      await emu.close();
    }
  });
});
