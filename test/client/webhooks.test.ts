import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PixNotFoundError, PixValidationError } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

describe('webhook management', () => {
  it('registers, lists, reads and deletes', async () => {
    emulator = await startEmulator();
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url });
    const created = await client.webhooks.register({ url: 'https://shop.example/pix', events: ['transaction_paid', 'transfer_completed'] });
    expect(created).toMatchObject({
      url: 'https://shop.example/pix',
      events: ['transaction_paid', 'transfer_completed'],
      status: 'active',
    });

    expect((await client.webhooks.list()).map((w) => w.id)).toEqual([created.id]);
    expect(await client.webhooks.get(created.id)).toMatchObject({ id: created.id, totalDeliveries: 0 });
    await client.webhooks.delete(created.id);
    expect(await client.webhooks.list()).toEqual([]);
    await expect(client.webhooks.get(created.id)).rejects.toBeInstanceOf(PixNotFoundError);
  });

  it('refuses unknown events and non-http URLs before sending', async () => {
    emulator = await startEmulator();
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url });
    const badEvent = await client.webhooks
      .register({ url: 'https://shop.example/pix', events: ['order_paid' as 'transaction_paid'] })
      .catch((e: unknown) => e);
    expect(badEvent).toMatchObject({ name: 'PixValidationError', path: 'events.0' });
    const badUrl = await client.webhooks.register({ url: 'ftp://shop.example/pix', events: ['transaction_paid'] }).catch((e: unknown) => e);
    expect(badUrl).toBeInstanceOf(PixValidationError);
    expect(emulator.requests()).toEqual([]);
  });
});
