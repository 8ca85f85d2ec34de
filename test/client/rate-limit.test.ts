import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PixRateLimitedError } from '../../src/client/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { customer, fakeClock } from './fake-clock.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

async function setup(options: EmulatorOptions, clientOptions: { retry?: { backoff: { maxDelayMs: number } }; variant?: 'a' | 'b' } = {}) {
  const clock = fakeClock();
  emulator = await startEmulator({ now: clock.now, ...options });
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now, sleep: clock.sleep, ...clientOptions });
  const statuses = (path: string) =>
    emulator!
      .requests()
      .filter((r) => r.path === path)
      .map((r) => r.status);
  return { clock, client, emulator, statuses };
}

describe('rate limits', () => {
  it('on 429 waits Retry-After, then succeeds', async () => {
    const { clock, client, statuses } = await setup({ rateLimits: { readCompany: 2 } });
    await client.getCompany();
    clock.advance(15_000);
    await client.getCompany();
    expect(client.rateLimit()).toMatchObject({ operation: 'GET /api/v1/company', limit: 2, remaining: 0, windowSeconds: 60 });

    const info = await client.getCompany();
    expect(info.company.name).toMatch(/Pixhook/);
    expect(statuses('/api/v1/company')).toEqual([200, 200, 429, 200]);
    // The window opened 15 s before the 429: the server asked for 45 s and the client waited that long.
    expect(clock.sleeps).toEqual([45_000]);
    expect(client.rateLimit()).toMatchObject({ limit: 2, remaining: 1 });
  });

  it('never retries a charge creation', async () => {
    const { clock, client, statuses } = await setup({ rateLimits: { createCharge: 1 } });
    await client.createCharge({ amountInCents: 1990, customer });
    const error = await client.createCharge({ amountInCents: 1990, customer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixRateLimitedError);
    expect(error).toMatchObject({
      status: 429,
      apiCode: 'RATE_LIMITED',
      retryAfter: 60,
      details: { limit: 1, window: 60, retryAfter: 60 },
    });
    expect(statuses('/api/v1/pix/in/qrcode')).toEqual([201, 429]);
    expect(clock.sleeps).toEqual([]);
  });

  it('reads the Variant B nested 429 body', async () => {
    const { client } = await setup({ variant: 'b', rateLimits: { createCharge: 1 } }, { variant: 'b' });
    await client.createCharge({ amountInCents: 1, customer });
    const error = await client.createCharge({ amountInCents: 1, customer }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PixRateLimitedError', apiCode: 'RATE_LIMIT_EXCEEDED', details: { limit: 1, window: 60 } });
  });

  it('backs off exponentially a bounded number of times', async () => {
    const { clock, client, emulator: emu, statuses } = await setup({});
    emu.injectFault({ path: '/api/v1/webhook', action: 'status', status: 429, times: 10 });
    const error = await client.webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixRateLimitedError);
    expect(statuses('/api/v1/webhook')).toEqual([429, 429, 429, 429]);
    expect(clock.sleeps).toEqual([500, 1000, 2000]);
  });

  it('says every wait before a retry on the logger: a 429 on the token is never a silent stall', async () => {
    const warnings: { fields: Record<string, unknown>; message: string | undefined }[] = [];
    const logger = {
      info() {},
      error() {},
      warn: (fields: object, message?: string) => void warnings.push({ fields: { ...fields }, message }),
    };
    const clock = fakeClock();
    emulator = await startEmulator({ now: clock.now });
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now, sleep: clock.sleep, logger });
    emulator.injectFault({ path: '/api/auth', action: 'status', status: 429, times: 1 });
    emulator.injectFault({ path: '/api/v1/company', action: 'status', status: 503, times: 1 });

    expect((await client.getCompany()).company.name).toMatch(/Pixhook/);
    expect(clock.sleeps).toEqual([500, 500]);
    expect(warnings).toEqual([
      {
        fields: { operation: 'POST /api/auth', cause: 'answered 429', waitMs: 500, retry: 1, retries: 3 },
        message: 'pixhook client: POST /api/auth answered 429; retry 1 of 3 in 500 ms',
      },
      {
        fields: { operation: 'GET /api/v1/company', cause: 'answered 503', waitMs: 500, retry: 1, retries: 3 },
        message: 'pixhook client: GET /api/v1/company answered 503; retry 1 of 3 in 500 ms',
      },
    ]);
  });

  it('throws a Retry-After longer than the bound instead of stalling', async () => {
    const { clock, client, statuses } = await setup({ rateLimits: { readCompany: 1 } }, { retry: { backoff: { maxDelayMs: 10_000 } } });
    await client.getCompany();
    const error = await client.getCompany().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PixRateLimitedError', retryAfter: 60 });
    expect(statuses('/api/v1/company')).toEqual([200, 429]);
    expect(clock.sleeps).toEqual([]);
  });
});
