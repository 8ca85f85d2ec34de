import { readdir, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type DeliveryRecord, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { verifySignature, verifyTimestampedSignature } from '../../src/index.js';
import { startRecorder } from './webhook-receiver.js';
import { customer } from '../helpers/customer.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(options: EmulatorOptions = {}) {
  const emulator: Emulator = await startEmulator({ retry: { backoff: { delayMs: 5 } }, webhookSecret: 'whsec_test', ...options });
  const recorder = await startRecorder();
  cleanups.push(
    () => emulator.close(),
    () => recorder.close(),
  );
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url });
  await client.webhooks.register({ url: recorder.url, events: ['transaction_paid'] });
  const paid = async () => {
    const charge = await client.createCharge({ amountInCents: 1500, customer });
    emulator.pay(charge.id);
    await emulator.idle();
    return emulator.deliveries().find((d) => d.resourceId === charge.id && d.event === 'transaction_paid') as DeliveryRecord;
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data: unknown } };
  };
  return { emulator, recorder, client, paid, control };
}

describe('emulator: delivery faults', () => {
  it('fails a count of attempts to one URL as a 500, then the receiver gets the next one', async () => {
    const { emulator, recorder, paid } = await setup();
    const fault = emulator.injectDeliveryFault({ url: recorder.url, action: 'fail', status: 500, times: 2 });
    const delivery = await paid();
    expect(delivery.attempts.map((a) => [a.status, a.fault?.id])).toEqual([
      [500, fault.id],
      [500, fault.id],
      [200, undefined],
    ]);
    expect(delivery.state).toBe('delivered');
    // The two faulted attempts never reached the receiver.
    expect(recorder.received).toHaveLength(1);
    expect(emulator.deliveryFaults()).toEqual([]);
  });

  it('leaves other URLs alone', async () => {
    const { emulator, recorder, paid } = await setup();
    emulator.injectDeliveryFault({ url: 'http://127.0.0.1:9/elsewhere', action: 'fail' });
    expect((await paid()).attempts.map((a) => a.status)).toEqual([200]);
    expect(recorder.received).toHaveLength(1);
  });

  it('times out every attempt to every URL: 5 attempts, the documented backoff, then gives up', async () => {
    const { emulator, recorder, paid } = await setup({ retry: { backoff: { delayMs: 7 } }, deliveryTimeoutMs: 30 });
    emulator.injectDeliveryFault({ action: 'timeout' });
    const delivery = await paid();
    expect(delivery.state).toBe('gave_up');
    expect(delivery.delivered).toBe(false);
    expect(delivery.attempts).toHaveLength(5);
    expect(delivery.attempts.every((a) => a.status === undefined && /timeout/.test(a.error ?? '') && a.fault?.action === 'timeout')).toBe(
      true,
    );
    expect(delivery.attempts.map((a) => a.retryInMs)).toEqual([7, 14, 28, 56, undefined]);
    expect(emulator.retry).toEqual({ attempts: 5, scheduleMs: [7, 14, 28, 56] });
    expect(recorder.received).toHaveLength(0);
  });

  it('is bounded by time: a fault for 60 s stops hitting once the clock passes it', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const { emulator, recorder, paid } = await setup({ now: () => now });
    emulator.injectDeliveryFault({ action: 'fail', status: 503, forMs: 60_000 });
    expect((await paid()).state).toBe('gave_up');
    now += 60_000;
    expect((await paid()).attempts.map((a) => a.status)).toEqual([200]);
    expect(recorder.received).toHaveLength(1);
  });

  it('is controlled over HTTP: drop every attempt, list, log, remove, resend', async () => {
    const { emulator, recorder, paid, control } = await setup();
    const added = await control('POST', '/_emulator/delivery-faults', { url: recorder.url, action: 'drop' });
    expect(added.status).toBe(201);
    expect((await control('GET', '/_emulator/delivery-faults')).body.data).toMatchObject([{ url: recorder.url, action: 'drop', hits: 0 }]);
    const delivery = await paid();
    expect(delivery.attempts.map((a) => a.error)).toEqual(
      Array(5).fill(expect.stringMatching(/ECONNRESET \(dropped by delivery fault flt_\d+\)/)),
    );

    const log = await control('GET', `/_emulator/deliveries?state=gave_up&url=${encodeURIComponent(recorder.url)}`);
    expect(log.body).toMatchObject({ retry: { attempts: 5, scheduleMs: [5, 10, 20, 40] } });
    expect((log.body.data as DeliveryRecord[]).map((d) => [d.id, d.state, d.attempts.length])).toEqual([[delivery.id, 'gave_up', 5]]);

    expect((await control('DELETE', '/_emulator/delivery-faults')).status).toBe(200);
    expect((await control('GET', '/_emulator/delivery-faults')).body.data).toEqual([]);
    const resent = await control('POST', `/_emulator/deliveries/${delivery.id}/redeliver`);
    expect(resent.status).toBe(201);
    await emulator.idle();
    const again = emulator.deliveries().find((d) => d.id === (resent.body.data as DeliveryRecord).id);
    expect(again).toMatchObject({ redeliveryOf: delivery.id, state: 'delivered', body: delivery.body });
    expect(recorder.received.map((r) => r.body)).toEqual([delivery.body]);
  });

  it('refuses a malformed fault with 400, and an unknown one with 404', async () => {
    const { control } = await setup();
    expect((await control('POST', '/_emulator/delivery-faults', { action: 'explode' })).status).toBe(400);
    expect((await control('POST', '/_emulator/delivery-faults', { action: 'fail', times: 0 })).status).toBe(400);
    expect((await control('DELETE', '/_emulator/delivery-faults/flt_9999')).status).toBe(404);
    expect((await control('POST', '/_emulator/deliveries/dlv_999999/redeliver')).status).toBe(404);
  });

  it('reports every attempt as it happens, and a throwing listener stops nothing', async () => {
    const seen: string[] = [];
    const { paid } = await setup({
      deliveryFaults: [{ action: 'fail', times: 1 }],
      onDeliveryAttempt: (delivery, attempt) => {
        seen.push(`${delivery.id}#${attempt.attempt}:${attempt.status}`);
        throw new Error('broken log sink');
      },
    });
    const delivery = await paid();
    expect(seen).toEqual([`${delivery.id}#1:500`, `${delivery.id}#2:200`]);
    expect(delivery.state).toBe('delivered');
  });
});

describe('emulator: signature schemes', () => {
  it('signs X-Signature sha256=<hex> by default', async () => {
    const { recorder, paid } = await setup();
    await paid();
    const [received] = recorder.received;
    expect(
      await verifySignature({ body: received?.body ?? '', signature: received?.headers['x-signature'] as string, secret: 'whsec_test' }),
    ).toMatchObject({ ok: true });
  });

  it('signs t=<unix>,v1=<hex HMAC of "t.body"> in the brand header, fresh at every attempt', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const { emulator, recorder, paid } = await setup({ now: () => now, signature: { scheme: 'timestamped', header: 'Vexy-Signature' } });
    emulator.injectDeliveryFault({ action: 'fail', times: 1 });
    now += 1000;
    await paid();
    const [received] = recorder.received;
    const header = received?.headers['vexy-signature'] as string;
    expect(received?.headers['x-signature']).toBeUndefined();
    expect(header).toMatch(new RegExp(`^t=${Math.floor(now / 1000)},v1=[0-9a-f]{64}$`));
    const check = await verifyTimestampedSignature({ body: received?.body ?? '', signature: header, secret: 'whsec_test', now: () => now });
    expect(check.ok).toBe(true);
    const wrong = await verifyTimestampedSignature({
      body: received?.body ?? '',
      signature: header,
      secret: 'whsec_other',
      now: () => now,
    });
    expect(wrong.ok).toBe(false);
  });

  it('refuses a timestamped scheme without a header name', async () => {
    await expect(startEmulator({ signature: { scheme: 'timestamped', header: '' } })).rejects.toThrow(/header/);
  });
});

describe('emulator: independent of pixhook/client', () => {
  it('no emulator module imports the client, and qrcode-generator is only imported dynamically', async () => {
    const dir = new URL('../../src/emulator/', import.meta.url);
    // Recursive: the api-pix profile lives in src/emulator/api-pix/.
    for (const file of (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.ts'))) {
      const source = await readFile(new URL(file, dir), 'utf8');
      expect(source, file).not.toMatch(/from '(\.\.\/)+client\//);
      expect(source, file).not.toMatch(/^import[^\n]*'qrcode-generator'/m);
    }
  });
});
