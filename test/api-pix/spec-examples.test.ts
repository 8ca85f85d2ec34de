import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createApiPixReceiver, type PixReceivedEvent, type PixRefundUpdatedEvent } from '../../src/api-pix/index.js';
import { memoryDedupeStore, type PixEvent } from '../../src/index.js';
import { cobRWebhookNotification1, pixWebhook1, pixWebhook2, urlSecret } from './fixtures.js';

// bacen/pix-api openapi.yaml documents the /pix callback's body (requestBodies.WebhookPixBody) as one call
// carrying both examples: `{ "pix": [pixWebhook1, pixWebhook2] }`; and the /cobr body as cobRWebhookNotification1.
const webhookPixBody = { pix: [pixWebhook1, pixWebhook2] };

function served() {
  const seen: PixEvent[] = [];
  const keys: string[] = [];
  const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } }, store: memoryDedupeStore() }).onAny(
    (event, context) => {
      seen.push(event);
      keys.push(String(context.key));
    },
  );
  return { receiver, seen, keys };
}

async function post(port: number, path: string, body: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${path}?secret=${urlSecret}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return [response.status, (await response.json()) as unknown];
}

describe("the spec's documented bodies over real HTTP (node:http adapter)", () => {
  it('WebhookPixBody { pix: [pixWebhook1, pixWebhook2] }: three events, each once, and the resend is all duplicates', async () => {
    const { receiver, seen, keys } = served();
    const server = createServer(createNodeHandler(receiver));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port: listening } = server.address() as AddressInfo;
    try {
      expect(await post(listening, '/webhooks/bank/pix', webhookPixBody)).toEqual([200, { ok: true }]);
      expect(seen.map((event) => event.name)).toEqual(['pix_received', 'pix_refund_updated', 'pix_received']);
      const [first, refund, second] = seen as [PixReceivedEvent, PixRefundUpdatedEvent, PixReceivedEvent];
      expect(first.pix).toEqual({
        endToEndId: 'E12345678202009091221kkkkkkkkkkk',
        txid: 'c3e0e7a4e7f1469a9f782d3d4999343c',
        amountInCents: 11000,
        paidAt: '2020-09-09T20:15:00.358Z',
        payerInfo: '0123456789',
      });
      expect(first.transaction).toMatchObject({ id: 'c3e0e7a4e7f1469a9f782d3d4999343c', status: 'paid', amountInCents: 11000 });
      // The devolução, given as one object, still processing: the charge stays paid.
      expect(refund.refund).toEqual({
        id: '123ABC',
        rtrId: 'D12345678202009091221abcdf098765',
        amountInCents: 1000,
        status: 'processing',
        endToEndId: 'E12345678202009091221kkkkkkkkkkk',
        requestedAt: '2020-09-09T20:15:00.358Z',
      });
      expect(refund.transaction.status).toBe('paid');
      expect(second.pix).toMatchObject({ endToEndId: 'E87654321202009091221dfghi123456', amountInCents: 11000 });
      expect(keys).toEqual([
        'pix_received:E12345678202009091221kkkkkkkkkkk',
        'pix_refund_updated:E12345678202009091221kkkkkkkkkkk:123ABC:processing',
        'pix_received:E87654321202009091221dfghi123456',
      ]);

      // The PSP's resend of the same call: nothing runs again.
      expect(await post(listening, '/webhooks/bank/pix/', webhookPixBody)).toEqual([200, { ok: true }]);
      expect(seen).toHaveLength(3);

      // cobRWebhookNotification1 on /cobr: its tentativas' impossible date ('2024-20-08') does not make it unreadable.
      expect(await post(listening, '/webhooks/bank/cobr', cobRWebhookNotification1)).toEqual([200, { ok: true }]);
      expect(seen[3]).toMatchObject({
        name: 'recurring_charge_updated',
        recurringCharge: { txid: '3136957d93134f2184b369e8f1c0729d', recurrenceId: 'RR1234567820240115abcdefghijk', status: 'ATIVA' },
      });
      expect(keys[3]).toBe('recurring_charge_updated:3136957d93134f2184b369e8f1c0729d:ATIVA');
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
});
