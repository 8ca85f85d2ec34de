import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PixUnauthorizedError } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { fakeClock } from './fake-clock.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

async function setup() {
  const clock = fakeClock();
  emulator = await startEmulator({ now: clock.now, rateLimits: { auth: Infinity } });
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now, sleep: clock.sleep });
  const auths = () => emulator!.requests().filter((r) => r.path === '/api/auth').length;
  return { clock, client, emulator, auths };
}

describe('access token', () => {
  it('is cached, and renewed one minute before it expires (injected clock)', async () => {
    const { clock, client, emulator: emu, auths } = await setup();
    await client.getCompany();
    expect(auths()).toBe(1);

    clock.advance(28 * 60_000);
    await client.getCompany();
    expect(auths()).toBe(1);

    // 29 min 1 s: the old token still works on the server, but is within a minute of expiry.
    clock.advance(60_000 + 1000);
    await client.getCompany();
    expect(auths()).toBe(2);
    expect(emu.requests().some((r) => r.status === 401)).toBe(false);
  });

  it('shares one refresh among concurrent calls, however many wait', async () => {
    const { clock, client, auths } = await setup();
    const first = await Promise.all(Array.from({ length: 20 }, () => client.getCompany()));
    expect(first).toHaveLength(20);
    expect(auths()).toBe(1);

    clock.advance(30 * 60_000);
    await Promise.all(Array.from({ length: 20 }, () => client.webhooks.list()));
    expect(auths()).toBe(2);
  });

  it('on a 401 refreshes once and retries once', async () => {
    const { client, emulator: emu, auths } = await setup();
    await client.getCompany();
    emu.revokeTokens();

    const info = await client.getCompany();
    expect(info.company.id).toBe('cmp_emulator');
    expect(auths()).toBe(2);
    const company = emu
      .requests()
      .filter((r) => r.path === '/api/v1/company')
      .map((r) => r.status);
    expect(company).toEqual([200, 401, 200]);
  });

  it('throws the second 401 instead of looping', async () => {
    const { client, emulator: emu, auths } = await setup();
    emu.injectFault({ method: 'GET', path: '/api/v1/company', action: 'status', status: 401, times: 5 });
    const error = await client.getCompany().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixUnauthorizedError);
    expect(emu.requests().filter((r) => r.path === '/api/v1/company')).toHaveLength(2);
    expect(auths()).toBe(2);
  });

  it('refuses bad credentials without retrying and without echoing the secret', async () => {
    const { emulator: emu } = await setup();
    const client = createClient({ apiKey: emu.credentials.apiKey, apiSecret: 'sk_wrong_secret_value', baseUrl: emu.url });
    const error = await client.getCompany().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixUnauthorizedError);
    expect((error as PixUnauthorizedError).apiCode).toBe('UNAUTHORIZED');
    expect((error as PixUnauthorizedError).code).toBe('api_error');
    expect(String(error)).not.toContain('sk_wrong_secret_value');
    expect(emu.requests().map((r) => `${r.path} ${r.status}`)).toEqual(['/api/auth 401']);
  });
});
