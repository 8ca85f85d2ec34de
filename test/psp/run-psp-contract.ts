// The PSP sources' contract on one adapter: each PSP's profile, a fresh receiver (memory store and book)
// per case, served by the adapter under test over real HTTP (or the core's receive()).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPspReceiver } from '../../src/psp/index.js';
import { memoryPaymentBook, type PaymentBook, type PixEvent, type Receiver } from '../../src/index.js';
import { certificates, type AdapterUnderTest, type ApiPixTarget } from '../api-pix/api-pix-targets.js';
import type { ContractResponse } from '../contract/contract-target.js';
import { startConfirmationServer, type ConfirmationServer } from './confirmation-server.js';
import type { PspDeliveryRequest, PspProfile } from './psp-profiles.js';

interface Harness {
  receiver: Receiver;
  book: PaymentBook;
  paid: PixEvent[];
  all: PixEvent[];
  server: ConfirmationServer | undefined;
  send(request: PspDeliveryRequest): Promise<ContractResponse>;
}

const encoder = new TextEncoder();

export function runPspContract(adapter: AdapterUnderTest, profile: PspProfile): void {
  describe(`${profile.psp} on ${adapter.name}`, () => {
    let target: ApiPixTarget;
    let server: ConfirmationServer | undefined;
    beforeAll(async () => {
      target = await adapter.start('urlSecret', await certificates());
      if (profile.credential !== undefined) server = await startConfirmationServer(profile.credential);
    });
    afterAll(async () => {
      await target?.close();
      await server?.close();
    });

    async function harness(): Promise<Harness> {
      const book = memoryPaymentBook();
      const receiver = createPspReceiver({
        ...profile.options(server?.url ?? 'http://127.0.0.1:9'),
        book,
        ...(profile.credential !== undefined && { fetchTimeoutMs: 2_000 }),
      });
      const paid: PixEvent[] = [];
      const all: PixEvent[] = [];
      receiver.on('transaction_paid', (event) => void paid.push(event)).onAny((event) => void all.push(event));
      await target.serve(receiver);
      const send = (request: PspDeliveryRequest) =>
        target.send({ method: 'POST', headers: request.headers, body: encoder.encode(request.body), path: request.path });
      return { receiver, book, paid, all, server, send };
    }

    it('pay: 200, the one transaction_paid handler runs once with the exact cents, provider named', async () => {
      const h = await harness();
      const answer = await h.send(await profile.delivery({ id: 'CHG1', status: 'paid', amountInCents: 1990 }, server));
      expect(answer.status).toBe(200);
      expect(h.paid).toHaveLength(1);
      const event = h.paid[0]!;
      expect(event.provider).toBe(profile.psp);
      expect(event.source).toBe('webhook');
      // `raw` is the PSP's own record the event was read from (`payload` under its other name), never the union's view.
      expect(event.raw).toBe(event.payload);
      expect(JSON.stringify(event.raw)).toContain('CHG1');
      expect(event.kind === 'transaction' && event.transaction.amountInCents).toBe(1990);
      expect(event.kind === 'transaction' && event.transaction.id).toBe('CHG1');
    });

    it('the duplicate and a late pending neither run again nor undo the payment', async () => {
      const h = await harness();
      const paid = await profile.delivery({ id: 'CHG2', status: 'paid', amountInCents: 500, eventId: 'evt_paid_2' }, server);
      expect((await h.send(paid)).status).toBe(200);
      const again = await h.send(paid);
      expect(again.status).toBe(200);
      expect(JSON.parse(again.body)).toMatchObject({ reason: 'duplicate' });
      // The late pending (for Mercado Pago and Pagar.me the fetched state now says pending too).
      expect((await h.send(await profile.delivery({ id: 'CHG2', status: 'pending', amountInCents: 500 }, server))).status).toBe(200);
      expect(h.paid).toHaveLength(1);
      expect((await h.book.get('CHG2'))?.status).toBe('paid');
      // The PSP's resend of the payment: still a duplicate, still once.
      expect(
        (await h.send(await profile.delivery({ id: 'CHG2', status: 'paid', amountInCents: 500, eventId: 'evt_paid_2' }, server))).status,
      ).toBe(200);
      expect(h.paid).toHaveLength(1);
    });

    it('a wrong amount against the book’s expectation is held', async () => {
      const h = await harness();
      await h.book.expect({ id: 'CHG3', amountInCents: 1000 });
      const answer = await h.send(await profile.delivery({ id: 'CHG3', status: 'paid', amountInCents: 999 }, server));
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ reason: 'held' });
      expect(h.paid).toHaveLength(0);
    });

    it('a delivery without its signature or token: 401 signature_missing; a forged one: 401 signature_mismatch', async () => {
      const h = await harness();
      const genuine = await profile.delivery({ id: 'CHG4', status: 'paid', amountInCents: 100 }, server);
      const missing = await h.send(profile.unsigned(genuine));
      expect(missing.status).toBe(401);
      expect(JSON.parse(missing.body)).toMatchObject({ error: 'signature_missing' });
      const forged = await h.send(profile.forged(genuine));
      expect(forged.status).toBe(401);
      expect(JSON.parse(forged.body)).toMatchObject({ error: 'signature_mismatch' });
      expect(h.all).toHaveLength(0);
    });

    if (profile.credential !== undefined)
      it('an id-only delivery whose fetch fails: 503 gateway_unavailable, nothing claimed; the retry succeeds', async () => {
        const h = await harness();
        const request = await profile.delivery({ id: 'CHG5', status: 'paid', amountInCents: 4200 }, server);
        server!.fail(1, { status: 500 });
        const failed = await h.send(request);
        expect(failed.status).toBe(503);
        expect(JSON.parse(failed.body)).toMatchObject({ error: 'gateway_unavailable' });
        expect(failed.headers['retry-after']).toBe('5');
        expect(h.all).toHaveLength(0);
        const retried = await h.send(request);
        expect(retried.status).toBe(200);
        expect(h.paid).toHaveLength(1);
      });
  });
}
