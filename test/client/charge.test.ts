import { afterEach, describe, expect, it } from 'vitest';
import {
  createClient,
  PixBusinessRuleError,
  PixNetworkError,
  PixNotFoundError,
  PixValidationError,
  PixWaitTimeoutError,
  type CreateChargeInput,
} from '../../src/client/index.js';
import { crc16, parseEmvFields, startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { customer, fakeClock } from './fake-clock.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

async function setup(options: EmulatorOptions = {}, clientOptions: { variant?: 'a' | 'b'; minChargeAmountInCents?: number } = {}) {
  const clock = fakeClock();
  emulator = await startEmulator({ now: clock.now, ...options });
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now, sleep: clock.sleep, ...clientOptions });
  return { clock, client, emulator };
}

describe('charges (PIX IN)', () => {
  it('creates a pending charge with a valid EMV code and a PNG QR code', async () => {
    const { client, emulator: emu } = await setup();
    const charge = await client.createCharge({
      amountInCents: 1990,
      customer,
      description: 'Pedido #42',
      items: [{ title: 'Camiseta', quantity: 1, amountInCents: 1990 }],
      metadata: { orderId: '42' },
    });
    expect(charge.status).toBe('pending');
    expect(charge.feesInCents).toBe(20);
    const fields = parseEmvFields(charge.pix.emv);
    expect(fields).toMatchObject({ '00': '01', '53': '986', '54': '19.90', '58': 'BR' });
    expect(fields['26']).toContain('br.gov.bcb.pix');
    expect(charge.pix.emv.slice(-4)).toBe(crc16(charge.pix.emv.slice(0, -4)));
    const png = Buffer.from(charge.pix.qrCode.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(emu.requests().find((r) => r.path === '/api/v1/pix/in/qrcode')?.status).toBe(201);
  });

  it('refuses bad input before any request leaves, naming the field', async () => {
    const { client, emulator: emu } = await setup();
    const cases: Array<[CreateChargeInput, string]> = [
      [{ amountInCents: 99, customer }, 'amountInCents'],
      [{ amountInCents: 100, customer: { ...customer, document: '52998224724' } }, 'customer.document'],
      [{ amountInCents: 100, customer: { ...customer, documentType: 'cnpj' } }, 'customer.document'],
      [{ amountInCents: 100, customer: { ...customer, email: 'not-an-email' } }, 'customer.email'],
      [{ amountInCents: 100, customer: { ...customer, phone: undefined } }, 'customer.phone'],
      [{ amountInCents: 100, customer, description: 'x'.repeat(141) }, 'description'],
      [{ amountInCents: 100, customer, items: [{ title: 'a', quantity: 0, amountInCents: 100 }] }, 'items.0.quantity'],
      [{ amountInCents: 100, customer, postbackUrl: 'javascript:alert(1)' }, 'postbackUrl'],
    ];
    for (const [input, path] of cases) {
      const error = await client.createCharge(input).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(PixValidationError);
      expect((error as PixValidationError).path).toBe(path);
    }
    expect(emu.requests()).toEqual([]);
  });

  it('makes the minimum an option; the Variant A server still refuses under 100 with a 422', async () => {
    const { client } = await setup({}, { minChargeAmountInCents: 1 });
    const error = await client.createCharge({ amountInCents: 50, customer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixBusinessRuleError);
    expect(error).toMatchObject({ status: 422, apiCode: 'AMOUNT_OUT_OF_LIMITS', details: { minimum: 100 } });
  });

  it('in Variant B charges 1 cent without a phone (answered 200)', async () => {
    const { client, emulator: emu } = await setup({ variant: 'b' }, { variant: 'b' });
    const { phone: _phone, ...noPhone } = customer;
    const charge = await client.createCharge({ amountInCents: 1, customer: noPhone });
    expect(parseEmvFields(charge.pix.emv)['54']).toBe('0.01');
    expect(emu.requests().at(-1)?.status).toBe(200);
  });

  it('reads a transaction, and polls until it is paid', async () => {
    const { clock, client, emulator: emu } = await setup();
    const charge = await client.createCharge({ amountInCents: 5000, customer });
    expect(await client.getTransaction(charge.id)).toMatchObject({ id: charge.id, status: 'pending', amountInCents: 5000 });

    let reads = 0;
    const realSleep = clock.sleep;
    const paying = createClient({
      ...emu.credentials,
      baseUrl: emu.url,
      now: clock.now,
      sleep: async (ms, signal) => {
        if (++reads === 3) emu.pay(charge.id);
        await realSleep(ms, signal);
      },
    });
    const paid = await paying.waitForTransactionStatus(charge.id, { status: 'paid' });
    expect(paid.status).toBe('paid');
    expect(clock.sleeps).toEqual([3000, 3000, 3000]);
  });

  it('gives up at the timeout with the last status, and stops on abort', async () => {
    const { client } = await setup();
    const charge = await client.createCharge({ amountInCents: 5000, customer });
    const timeout = await client.waitForTransactionStatus(charge.id, { status: 'paid', timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(PixWaitTimeoutError);
    expect(timeout).toMatchObject({ lastStatus: 'pending' });

    const controller = new AbortController();
    controller.abort(new Error('user navigated away'));
    const aborted = await client
      .waitForTransactionStatus(charge.id, { status: 'paid', signal: controller.signal })
      .catch((e: unknown) => e);
    expect(aborted).toMatchObject({ message: 'user navigated away' });
  });

  it('throws PixNotFoundError for an unknown transaction', async () => {
    const { client } = await setup();
    await expect(client.getTransaction('txn_missing')).rejects.toBeInstanceOf(PixNotFoundError);
  });
});

describe('retries', () => {
  it('never retries a charge whose answer was lost: one request, one charge, a PixNetworkError', async () => {
    const clock = fakeClock();
    emulator = await startEmulator({ now: clock.now });
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now, sleep: clock.sleep });
    emulator.injectFault({ method: 'POST', path: '/api/v1/pix/in/qrcode', action: 'drop-response' });
    await expect(client.createCharge({ amountInCents: 1990, customer })).rejects.toBeInstanceOf(PixNetworkError);
    expect(emulator.requests().filter((r) => r.path === '/api/v1/pix/in/qrcode')).toHaveLength(1);
    expect(emulator.charges()).toHaveLength(1);
  });

  it('retries a safe call after a 5xx', async () => {
    const clock = fakeClock();
    emulator = await startEmulator({ now: clock.now });
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now, sleep: clock.sleep });
    emulator.injectFault({ path: '/api/v1/company', action: 'status', status: 503 });
    await client.getCompany();
    expect(
      emulator
        .requests()
        .filter((r) => r.path === '/api/v1/company')
        .map((r) => r.status),
    ).toEqual([503, 200]);
    expect(clock.sleeps).toEqual([500]);
  });

  it('retry: { attempts } counts every run, the first included: 3 runs, waits 500 ms doubling (the default backoff)', async () => {
    const clock = fakeClock();
    emulator = await startEmulator({ now: clock.now });
    const client = createClient({
      ...emulator.credentials,
      baseUrl: emulator.url,
      now: clock.now,
      sleep: clock.sleep,
      retry: { attempts: 3 },
    });
    emulator.injectFault({ path: '/api/v1/company', action: 'status', status: 503, times: 10 });
    await expect(client.getCompany()).rejects.toMatchObject({ status: 503 });
    expect(
      emulator
        .requests()
        .filter((r) => r.path === '/api/v1/company')
        .map((r) => r.status),
    ).toEqual([503, 503, 503]);
    expect(clock.sleeps).toEqual([500, 1000]);
  });

  it('refuses a 2xx whose body is not the documented shape', async () => {
    const clock = fakeClock();
    emulator = await startEmulator({ now: clock.now });
    const real = emulator.url;
    const client = createClient({
      ...emulator.credentials,
      baseUrl: real,
      fetch: async (input, init) =>
        input.endsWith('/api/v1/company')
          ? new Response(JSON.stringify({ success: true, data: { company: { id: 1 } } }))
          : fetch(input, init),
    });
    await expect(client.getCompany()).rejects.toMatchObject({
      name: 'PixResponseError',
      message: expect.stringMatching(/data\.company\.id/),
    });
  });
});
