import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PixBusinessRuleError, PixValidationError, type FetchLike } from '../../src/client/index.js';
import { emulatorRefusedPixKey, startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

async function setup(options: EmulatorOptions = {}) {
  emulator = await startEmulator({ transferStepMs: 5, ...options });
  const sent: Headers[] = [];
  const recordingFetch: FetchLike = (input, init) => {
    sent.push(new Headers(init.headers));
    return fetch(input, init);
  };
  const client = createClient({
    ...emulator.credentials,
    baseUrl: emulator.url,
    fetch: recordingFetch,
    retry: { backoff: { delayMs: 1 } },
  });
  return { client, emulator, sent };
}

describe('transfers', () => {
  it('retried after a dropped connection, with the same idempotency key, make exactly one transfer', async () => {
    const { client, emulator: emu } = await setup();
    // The gateway does the work, then the connection dies before the answer.
    emu.injectFault({ method: 'POST', path: '/api/v1/pix/out/pixkey', action: 'drop-response' });

    const transfer = await client.sendTransfer({ pixKey: '11222333000181', amountInCents: 2500, description: 'Fornecedor' });

    expect(emu.transfers()).toHaveLength(1);
    expect(transfer.id).toBe(emu.transfers()[0]?.id);
    expect(transfer).toMatchObject({ status: 'queued', amountInCents: 2500, pixKey: '11222333000181' });
    const posts = emu.requests().filter((r) => r.path === '/api/v1/pix/out/pixkey');
    expect(posts.map((r) => r.status)).toEqual([0, 200]);
    expect(posts.map((r) => r.idempotencyKey)).toEqual([transfer.idempotencyKey, transfer.idempotencyKey]);
  });

  it('sends the key under both documented header names, a fresh key per call', async () => {
    const { client, sent } = await setup();
    const a = await client.sendTransfer({ pixKey: 'pagamentos@example.com', amountInCents: 1 });
    const b = await client.sendTransfer({ pixKey: 'pagamentos@example.com', amountInCents: 1 });
    const transferHeaders = sent.filter((h) => h.get('x-idempotency-key') !== null);
    expect(transferHeaders.map((h) => h.get('x-idempotency-key'))).toEqual([a.idempotencyKey, b.idempotencyKey]);
    expect(transferHeaders.map((h) => h.get('idempotency-key'))).toEqual([a.idempotencyKey, b.idempotencyKey]);
    expect(a.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.id).not.toBe(b.id);
  });

  it('returns the first result for a repeated key, and refuses the key for another transfer', async () => {
    const { client, emulator: emu } = await setup();
    const first = await client.sendTransfer({ pixKey: '+5511999998888', amountInCents: 700, idempotencyKey: 'order-42' });
    const again = await client.sendTransfer({ pixKey: '+5511999998888', amountInCents: 700, idempotencyKey: 'order-42' });
    expect(again.id).toBe(first.id);
    expect(emu.transfers()).toHaveLength(1);
    const other = await client
      .sendTransfer({ pixKey: '+5511999998888', amountInCents: 701, idempotencyKey: 'order-42' })
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(PixBusinessRuleError);
    expect(other).toMatchObject({ status: 422, apiCode: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('infers the key type, and refuses bad input before any request leaves', async () => {
    const { client, emulator: emu } = await setup();
    const cases: Array<[Parameters<typeof client.sendTransfer>[0], string]> = [
      [{ pixKey: '12345678900', amountInCents: 100 }, 'pixKey'],
      [{ pixKey: 'ana@example.com', pixKeyType: 'CPF', amountInCents: 100 }, 'pixKey'],
      [{ pixKey: 'ana@example.com', amountInCents: 0 }, 'amountInCents'],
      [{ pixKey: 'ana@example.com', amountInCents: 1.5 }, 'amountInCents'],
      [{ pixKey: 'ana@example.com', amountInCents: 100, description: 'x'.repeat(141) }, 'description'],
      [{ pixKey: 'ana@example.com', amountInCents: 100, currency: 'USD' as 'BRL' }, 'currency'],
    ];
    for (const [input, path] of cases) {
      const error = await client.sendTransfer(input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PixValidationError);
      expect((error as PixValidationError).path).toBe(path);
    }
    expect(emu.requests()).toEqual([]);
  });

  it('moves queued → processing → completed, or refused for the documented failing key', async () => {
    const { client, emulator: emu } = await setup();
    const ok = await client.sendTransfer({ pixKey: '7d9f0335-8dcc-4054-9bf9-0dbd61d36900', amountInCents: 990 });
    const refused = await client.sendTransfer({ pixKey: emulatorRefusedPixKey, amountInCents: 990 });
    const fast = { intervalMs: 5, timeoutMs: 5000 };
    expect((await client.waitForTransactionStatus(ok.id, { status: ['completed', 'refused'], ...fast })).status).toBe('completed');
    expect((await client.waitForTransactionStatus(refused.id, { status: ['completed', 'refused'], ...fast })).status).toBe('refused');
    const [okRecord] = emu.transfers();
    expect(okRecord).toMatchObject({ pixKeyType: 'EVP', status: 'completed' });
  });

  it('reads the Variant B transfer body into the same shape', async () => {
    const { client } = await setup({ variant: 'b' });
    const transfer = await client.sendTransfer({ pixKey: '529.982.247-25', amountInCents: 1234 });
    expect(transfer).toMatchObject({ status: 'queued', amountInCents: 1234, pixKey: undefined, netAmountInCents: undefined });
  });
});
