// Issue 38, durable mode for PSP events through real Redis and BullMQ: Mercado Pago (its payment fetched at intake)
// and Asaas (confirmed with GET /v3/payments/{id} at intake). The receiver claims and queues the confirmed event;
// a worker with no PSP credentials runs it through the Redis book: the payment runs once with its provider, the
// PSP's duplicate queues and runs nothing, a wrong amount is held and never runs.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, type PixEventOf } from '../../src/index.js';
import { createPspReceiver, type PspSourceOptions } from '../../src/psp/index.js';
import { createDurableQueue, redisDedupeStore, redisPaymentBook, startWorker } from '../../src/redis/index.js';
import { signAsaas } from '../../src/testing/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startConfirmationServer, type ConfirmationServer } from '../psp/confirmation-server.js';
import { asaasToken, mercadoPago, type PspDeliveryRequest } from '../psp/psp-profiles.js';
import { until } from './deliveries.js';

let redis: RedisServer;
let client: Redis;
let mpApi: ConfirmationServer;
let asaasApi: ConfirmationServer;
const asaasKey = '$aact_test_key';

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.url);
  mpApi = await startConfirmationServer(mercadoPago.credential!);
  asaasApi = await startConfirmationServer({ header: 'access_token', value: asaasKey });
});

afterAll(async () => {
  await mpApi.close();
  await asaasApi.close();
  client.disconnect();
  await redis.dispose();
});

/** Asaas's PAYMENT_RECEIVED for `id`, with the confirmation API answering the payment at `value` reais. */
function asaasDelivery(id: string, cents: number): PspDeliveryRequest {
  asaasApi.set(`/v3/payments/${id}`, { object: 'payment', id, value: cents / 100, billingType: 'PIX', status: 'RECEIVED' });
  const body = JSON.stringify({
    id: `evt_${id}`,
    event: 'PAYMENT_RECEIVED',
    dateCreated: '2026-11-28 10:00:00',
    payment: { object: 'payment', id, value: cents / 100, billingType: 'PIX', status: 'RECEIVED' },
  });
  return { path: '', headers: { 'content-type': 'application/json', ...signAsaas({ token: asaasToken }) }, body };
}

const cases: {
  psp: string;
  /** The PSP API path intake reads the payment at. */
  api: (id: string) => { server: ConfirmationServer; path: string };
  options: () => PspSourceOptions;
  delivery: (id: string, cents: number) => Promise<PspDeliveryRequest>;
}[] = [
  {
    psp: 'mercado-pago',
    api: (id) => ({ server: mpApi, path: `/v1/payments/${id}` }),
    options: () => mercadoPago.options(mpApi.url),
    delivery: (id, cents) => mercadoPago.delivery({ id, status: 'paid', amountInCents: cents }, mpApi),
  },
  {
    psp: 'asaas',
    api: (id) => ({ server: asaasApi, path: `/v3/payments/${id}` }),
    options: () => ({ psp: 'asaas', token: asaasToken, apiKey: asaasKey, apiBaseUrl: asaasApi.url }),
    delivery: async (id, cents) => asaasDelivery(id, cents),
  },
];

let queues = 0;

describe.each(cases.map((one) => [one.psp, one] as const))('durable mode over Redis and BullMQ, %s', (psp, one) => {
  it('pays once on the worker with its provider; the duplicate runs nothing; a wrong amount is held', async () => {
    const tag = `psp-${++queues}`;
    const queue = await createDurableQueue({ connection: redis.url, queueName: tag });
    const receiver = createPspReceiver({
      ...one.options(),
      mode: 'durable',
      queue,
      store: redisDedupeStore({ client, prefix: `${tag}:` }),
    });
    const book = redisPaymentBook({ client, prefix: `${tag}:{book}:` });
    const ran: PixEventOf<'transaction_paid'>[] = [];
    // The worker's processing knows the handlers and the book, never the PSP's credentials.
    const processing = createProcessing({ book }).on('transaction_paid', (event) => void ran.push(event));
    const worker = await startWorker({
      processing,
      connection: redis.url,
      queueName: tag,
      retry: { attempts: 3, backoff: { delayMs: 10 } },
    });
    const receive = (request: PspDeliveryRequest) =>
      receiver.receive({ method: 'POST', headers: request.headers, body: request.body, url: `/webhooks/${psp}${request.path}` });
    try {
      const id = psp === 'asaas' ? 'pay_durable_1' : '1234567001';
      const wrong = psp === 'asaas' ? 'pay_durable_2' : '1234567002';
      await book.expect({ id, amountInCents: 2590 });
      await book.expect({ id: wrong, amountInCents: 2590 });

      const first = await receive(await one.delivery(id, 2590));
      expect([first.status, first.reason]).toEqual([200, undefined]);
      // Read at intake from the PSP's API, before the claim.
      const { server, path } = one.api(id);
      expect(server.seen.map((seen) => seen.path)).toContain(path);
      await until(async () => (await queue.counts()).completed === 1);
      expect(ran.map((event) => [event.provider, event.transaction.id, event.transaction.amountInCents])).toEqual([[psp, id, 2590]]);
      expect((await book.get(id))?.status).toBe('paid');

      const again = await receive(await one.delivery(id, 2590));
      expect([again.status, again.reason]).toEqual([200, 'duplicate']);

      expect((await receive(await one.delivery(wrong, 100))).status).toBe(200);
      await until(async () => (await queue.counts()).completed === 2);
      expect(await queue.counts()).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 2, failed: 0 });
      expect(ran).toHaveLength(1);
      expect((await book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
        [wrong, ['amount_mismatch']],
      ]);
    } finally {
      await worker.close();
      await queue.close();
      await receiver.close();
    }
  }, 60_000);
});
