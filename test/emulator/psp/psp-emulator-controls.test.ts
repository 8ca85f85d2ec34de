// The PSP emulator's own behaviour: its /_emulator controls over HTTP, the confirmation API's credential,
// Asaas's paused queue, Woovi's published and rotated keys, and its option checks.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type PspEmulator } from '../../../src/emulator/index.js';
import { PixhookConfigError } from '../../../src/index.js';
import { createPspReceiver } from '../../../src/psp/index.js';
import { startRecorder } from '../webhook-receiver.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function emulator(profile: PspEmulator['profile'], options: { webhookUrl?: string } = {}): Promise<PspEmulator> {
  const e = await startEmulator({ profile, timeFactor: 0.0001, deliveryTimeoutMs: 2_000, ...options });
  open.push(e);
  return e;
}

async function control(e: PspEmulator, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${e.url}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

describe('the PSP emulator’s controls', () => {
  it('creates, registers a URL and pays over HTTP; the record reads paid with the run’s credential only', async () => {
    const recorder = await startRecorder();
    open.push(recorder);
    const e = await emulator('asaas');
    expect((await control(e, 'POST', '/_emulator/webhook', { url: recorder.url })).json).toEqual({ url: recorder.url });
    const created = await control(e, 'POST', '/_emulator/charges', { amountInCents: 1050, payerDocument: '12345678909' });
    expect(created.status).toBe(201);
    const id = created.json!['id'] as string;
    expect((await control(e, 'POST', `/_emulator/charges/${id}/pay`, {})).json).toMatchObject({ id, status: 'paid', paidInCents: 1050 });
    expect((await control(e, 'POST', `/_emulator/charges/${id}/pay`)).status).toBe(422);
    await e.idle();
    expect(recorder.received[0]?.headers['asaas-access-token']).toBe(e.credentials['token']);
    expect(JSON.parse(recorder.received[0]!.body)).toMatchObject({
      event: 'PAYMENT_RECEIVED',
      payment: { id, value: 10.5, status: 'RECEIVED' },
    });
    expect((await control(e, 'GET', '/_emulator/charges')).json!['data']).toEqual([expect.objectContaining({ id, status: 'paid' })]);
    expect((await control(e, 'GET', '/_emulator/deliveries')).json).toMatchObject({
      paused: false,
      data: [{ kind: 'paid', state: 'delivered' }],
    });
    expect((await control(e, 'GET', `/v3/payments/${id}`)).status).toBe(401);
    expect((await control(e, 'GET', `/v3/payments/${id}`, undefined, { access_token: 'wrong' })).status).toBe(401);
    const read = await control(e, 'GET', `/v3/payments/${id}`, undefined, { access_token: e.credentials['apiKey']! });
    expect(read.json).toMatchObject({ id, status: 'RECEIVED', billingType: 'PIX', value: 10.5 });
    expect((await control(e, 'GET', '/v3/payments/pay_unknown', undefined, { access_token: e.credentials['apiKey']! })).status).toBe(404);
    expect((await control(e, 'POST', '/v3/payments/x')).status).toBe(404);
  });

  it('refuses what it does not know: a bad body 400, an unknown control or charge 404, another origin 403', async () => {
    const e = await emulator('pagarme');
    expect((await control(e, 'POST', '/_emulator/charges', { amountInCents: 0 })).status).toBe(400);
    expect((await control(e, 'POST', '/_emulator/charges')).status).toBe(400);
    expect((await control(e, 'POST', '/_emulator/webhook', { url: 'ftp://x' })).status).toBe(400);
    expect((await control(e, 'POST', '/_emulator/charges/ch_none/pay')).status).toBe(404);
    expect((await control(e, 'GET', '/_emulator/nothing')).status).toBe(404);
    expect((await control(e, 'POST', '/_emulator/fetch-faults', { status: 418, times: 1 })).status).toBe(400);
    expect((await control(e, 'POST', '/_emulator/delivery-faults', { action: 'explode' })).status).toBe(400);
    const foreign = await control(e, 'POST', '/_emulator/charges', { amountInCents: 5 }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(e.charges()).toEqual([]);
  });

  it('a fetch fault answers 429 with Retry-After, then the Basic-authenticated read succeeds', async () => {
    const e = await emulator('pagarme');
    const charge = e.createCharge({ amountInCents: 990 });
    expect((await control(e, 'POST', '/_emulator/fetch-faults', { status: 429, times: 1 })).status).toBe(201);
    const basic = { authorization: `Basic ${Buffer.from(`${e.credentials['secretKey']}:`).toString('base64')}` };
    const limited = await control(e, 'GET', `/core/v5/charges/${charge.id}`, undefined, basic);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    expect((await control(e, 'GET', `/core/v5/charges/${charge.id}`, undefined, basic)).json).toMatchObject({
      id: charge.id,
      status: 'pending',
      amount: 990,
    });
  });

  it('Asaas: 15 failed attempts in a row pause the queue (nothing more is sent); resume sends what waits', async () => {
    const recorder = await startRecorder();
    open.push(recorder);
    const e = await emulator('asaas', { webhookUrl: recorder.url });
    expect(e.retry.attempts).toBe(15);
    expect((await control(e, 'POST', '/_emulator/delivery-faults', { action: 'fail', status: 500, times: 15 })).status).toBe(201);
    const first = e.createCharge({ amountInCents: 100 });
    await e.pay(first.id);
    await e.idle();
    expect(e.paused()).toBe(true);
    expect(e.deliveries()[0]).toMatchObject({ state: 'paused' });
    expect(e.deliveries()[0]!.attempts.map((a) => a.status)).toEqual(Array(15).fill(500));
    // A payment while paused is kept, not sent.
    const second = e.createCharge({ amountInCents: 200 });
    await e.pay(second.id);
    await e.idle();
    expect(recorder.received).toHaveLength(0);
    expect(e.deliveries()[1]).toMatchObject({ state: 'paused', attempts: [] });
    expect((await control(e, 'POST', '/_emulator/queue/resume')).json).toEqual({ paused: false });
    await e.idle();
    expect(e.deliveries().map((d) => d.state)).toEqual(['delivered', 'delivered']);
    expect(e.deliveries()[0]!.attempts.map((a) => a.status)).toEqual([...Array(15).fill(500), 200]);
    const ids = recorder.received.map((r) => (JSON.parse(r.body) as { payment: { id: string } }).payment.id);
    expect(ids.sort()).toEqual([first.id, second.id].sort());
  });

  it('Asaas: 14 failures in a row do not pause the queue; a success starts the count again', async () => {
    const recorder = await startRecorder();
    open.push(recorder);
    const e = await emulator('asaas', { webhookUrl: recorder.url });
    expect((await control(e, 'POST', '/_emulator/delivery-faults', { action: 'fail', status: 500, times: 14 })).status).toBe(201);
    const first = e.createCharge({ amountInCents: 100 });
    await e.pay(first.id);
    await e.idle();
    expect(e.paused()).toBe(false);
    expect(e.deliveries()[0]!.attempts.map((a) => a.status)).toEqual([...Array(14).fill(500), 200]);
    // 14 more failures after that success: still 14 in a row, not 28, so the queue keeps sending.
    expect((await control(e, 'POST', '/_emulator/delivery-faults', { action: 'fail', status: 500, times: 14 })).status).toBe(201);
    const second = e.createCharge({ amountInCents: 200 });
    await e.pay(second.id);
    await e.idle();
    expect(e.paused()).toBe(false);
    expect(e.deliveries().map((d) => d.state)).toEqual(['delivered', 'delivered']);
    expect(recorder.received).toHaveLength(2);
  });

  it('a webhook out of attempts ends failed; the delivery-faults control is cleared by DELETE', async () => {
    const recorder = await startRecorder();
    open.push(recorder);
    const e = await emulator('pagbank', { webhookUrl: recorder.url });
    e.injectDeliveryFault({ action: 'drop', times: 5 });
    const charge = e.createCharge({ amountInCents: 100 });
    await e.pay(charge.id);
    await e.idle();
    expect(e.deliveries()[0]).toMatchObject({ state: 'failed' });
    expect(e.deliveries()[0]!.attempts).toHaveLength(5);
    e.injectDeliveryFault({ action: 'fail', times: 5 });
    expect((await control(e, 'DELETE', '/_emulator/delivery-faults')).status).toBe(204);
    await e.pay(e.createCharge({ amountInCents: 100 }).id);
    await e.idle();
    expect(e.deliveries()[1]).toMatchObject({ state: 'delivered' });
  });

  it('Woovi: the public keys are published; after a rotation a receiver trusting both keys takes the new signature, one trusting the old only refuses it', async () => {
    const recorder = await startRecorder();
    open.push(recorder);
    const e = await emulator('woovi', { webhookUrl: recorder.url });
    const oldKey = e.credentials['publicKey']!;
    const rotated = await control(e, 'POST', '/_emulator/keys/rotate');
    const newKey = rotated.json!['publicKey'] as string;
    expect(newKey).not.toBe(oldKey);
    expect(e.credentials['publicKey']).toBe(newKey);
    const published = (await control(e, 'GET', '/api/v1/webhook/public-keys')).json!['publicKeys'] as {
      public_key: string;
      is_current: boolean;
    }[];
    expect(published.map((k) => [Buffer.from(k.public_key, 'base64').toString(), k.is_current])).toEqual([
      [oldKey, false],
      [newKey, true],
    ]);
    await e.pay(e.createCharge({ amountInCents: 100 }).id);
    await e.idle();
    const sent = recorder.received[0]!;
    const request = () => ({ method: 'POST', headers: sent.headers, body: sent.body });
    expect((await createPspReceiver({ psp: 'woovi', publicKeys: [oldKey] }).receive(request())).status).toBe(401);
    expect((await createPspReceiver({ psp: 'woovi', publicKeys: [oldKey, newKey] }).receive(request())).status).toBe(200);
  });

  it('refuses a wrong profile or option naming it', async () => {
    await expect(startEmulator({ profile: 'paypal' as 'asaas' })).rejects.toThrow(/`profile` must be "gateway", "api-pix", "mercado-pago"/);
    await expect(startEmulator({ profile: 'asaas', timeFactor: 2 })).rejects.toThrow(PixhookConfigError);
    await expect(startEmulator({ profile: 'asaas', webhookUrl: 'nope' })).rejects.toThrow(/`webhookUrl` must be an http\(s\) URL/);
    await expect(startEmulator({ profile: 'asaas', credentials: 5 as unknown as Record<string, string> })).rejects.toThrow(/`credentials`/);
    const e = await emulator('mercado-pago');
    expect(() => e.setWebhookUrl('not a url')).toThrow(/`url` must be/);
    expect(e.webhookUrl()).toBeUndefined();
    // Nothing registered: paying sends nothing.
    await e.pay(e.createCharge({ amountInCents: 1 }).id);
    expect(e.deliveries()).toEqual([]);
  });
});
