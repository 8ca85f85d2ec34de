// Asaas, PagBank, Woovi and Pagar.me: each PSP's documented body read as documented, each signature against
// a vector computed here from the documented algorithm with node:crypto, and the options each refuses.
import { createHash, createSign, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPspReceiver } from '../../src/psp/index.js';
import { asaasSource } from '../../src/sources/asaas/source.js';
import { pagarmeSource } from '../../src/sources/pagarme/source.js';
import { pagbankSource } from '../../src/sources/pagbank/source.js';
import { sourceReaders } from '../../src/sources/readers.js';
import { wooviSource } from '../../src/sources/woovi/source.js';
import { decimalToCents, integerCents } from '../../src/sources/shared/cents.js';
import { sameText } from '../../src/sources/shared/constant-time.js';
import { sourceKey } from '../../src/sources/keys.js';
import {
  memoryPaymentBook,
  memoryQuarantine,
  normalizeEvent,
  PixhookConfigError,
  type InvalidDelivery,
  type PixEvent,
} from '../../src/index.js';
import { pspSamples, signPagBank, signWoovi } from '../../src/testing/index.js';
import { startConfirmationServer, type ConfirmationServer } from './confirmation-server.js';
import { strangerKeys, wooviKeys } from './psp-profiles.js';

type Charge = Extract<PixEvent, { kind: 'transaction' }>;
const only = (events: readonly PixEvent[]) => {
  expect(events).toHaveLength(1);
  return events[0] as Charge;
};

describe('shared pieces', () => {
  it('reads decimals exactly: 0.29 is 29 cents, never 28', () => {
    expect(decimalToCents(0.29)).toBe(29);
    expect(decimalToCents(42.23)).toBe(4223);
    expect(decimalToCents('10.5')).toBe(1050);
    expect(decimalToCents(100)).toBe(10000);
    for (const bad of [0.001, -1, '1,50', 'x', null, Number.NaN, '1.234']) expect(decimalToCents(bad)).toBeUndefined();
    expect(integerCents('500')).toBe(500);
    expect(integerCents(1.5)).toBeUndefined();
  });
  it('keys the gateway’s and API Pix’s events as before, and a PSP’s with its provider first', () => {
    const gateway = normalizeEvent({ event: 'transaction_paid', data: { id: 'tx', status: 'paid', amount: 100 } });
    expect(gateway.ok && gateway.event.kind !== 'unknown' && sourceKey(gateway.event)).toBe('transaction_paid:tx:paid:100');
    expect(gateway.ok && gateway.event.provider).toBe('gateway');
  });
  it('compares tokens over their whole length', () => {
    expect(sameText('abc', 'abc')).toBe(true);
    expect(sameText('abd', 'abc')).toBe(false);
    expect(sameText('ab', 'abc')).toBe(false);
    expect(sameText(undefined, 'abc')).toBe(false);
  });
});

describe('Asaas', () => {
  const source = asaasSource({ psp: 'asaas', token: 'tok' });
  it('reads the documented PAYMENT_RECEIVED as the payment, null fields absent, keyed on the event id', () => {
    const event = only(source.read(pspSamples.asaas.paymentReceived, { headers: {} }).events);
    expect(event).toMatchObject({
      name: 'transaction_paid',
      provider: 'asaas',
      deliveryId: 'evt_d26e303b238e509335ac9ba210e51b0f&7686444',
    });
    expect(event.transaction).toEqual({ id: 'pay_6egmyz6lpfxazko3', status: 'paid', amountInCents: 4223, netAmountInCents: 4124 });
    expect(sourceKey(event)).toBe('asaas:evt:evt_d26e303b238e509335ac9ba210e51b0f&7686444');
  });
  it('authenticates the asaas-access-token header', () => {
    expect(source.authenticate({ headers: { 'asaas-access-token': 'tok' } })).toEqual({ ok: true });
    expect(source.authenticate({ headers: { 'Asaas-Access-Token': 'tok2' } })).toMatchObject({ reason: 'signature_mismatch' });
    expect(source.authenticate({ headers: {} })).toMatchObject({ reason: 'signature_missing' });
  });
  it('acknowledges events it does not read; an unreadable payment is a failure', () => {
    expect(source.read({ event: 'PAYMENT_BANK_SLIP_VIEWED', payment: {} }, { headers: {} })).toEqual({
      events: [],
      hints: [],
      failures: [],
    });
    expect(source.read({ event: 'PAYMENT_RECEIVED', payment: { id: 'p', value: 'x' } }, { headers: {} }).failures).toHaveLength(1);
    expect(source.read([], { headers: {} }).failures).toHaveLength(1);
  });
  it('with apiKey, confirms with GET /v3/payments/{id} (access_token header): the fetched status decides', async () => {
    const server = await startConfirmationServer({ header: 'access_token', value: 'key' });
    try {
      const confirming = asaasSource({ psp: 'asaas', token: 'tok', apiKey: 'key', apiBaseUrl: server.url });
      const read = confirming.read(pspSamples.asaas.paymentReceived, { headers: {} });
      expect(read.events).toHaveLength(0);
      server.set('/v3/payments/pay_6egmyz6lpfxazko3', { id: 'pay_6egmyz6lpfxazko3', status: 'PENDING', value: 42.23 });
      const fetched = await confirming.fetch!(read.hints[0]!, AbortSignal.timeout(2000));
      expect(fetched.status === 'events' && fetched.events[0]).toMatchObject({
        name: 'transaction_created',
        deliveryId: 'evt_d26e303b238e509335ac9ba210e51b0f&7686444',
      });
      // Confirmed, it is keyed on the fact the API stated, not on the event's id (issue 38: a late event of a paid
      // payment, fetched as paid, is the same fact and runs no handler again).
      const confirmed = (fetched as { events: PixEvent[] }).events[0]!;
      expect(sourceKey(confirmed)).toBe('asaas:transaction_created:pay_6egmyz6lpfxazko3:pending:4223');
      expect(sourceKey(confirmed)).toBe(confirming.key(confirmed));
      const replayed = sourceReaders.asaas.confirmed!(confirmed.payload, pspSamples.asaas.paymentReceived, confirmed.deliveryId, 'replay');
      expect(replayed && sourceKey(replayed)).toBe(sourceKey(confirmed));
      expect(await confirming.fetch!({ ...read.hints[0]!, id: 'other' }, AbortSignal.timeout(2000))).toMatchObject({ status: 'not_found' });
    } finally {
      await server.close();
    }
  });
  it('reads PAYMENT_REFUNDED as transaction_refunded, the whole value returned, in exact cents', () => {
    const event = only(source.read(pspSamples.asaas.paymentRefunded, { headers: {} }).events);
    expect(event.name).toBe('transaction_refunded');
    expect(event.transaction).toMatchObject({
      id: 'pay_6egmyz6lpfxazko3',
      status: 'refunded',
      amountInCents: 4223,
      refund: { amountInCents: 4223 },
    });
  });
  it('reads PAYMENT_PARTIALLY_REFUNDED with the last of its refunds; without the list, no amount is guessed', () => {
    const refunds = [
      { dateCreated: '2024-11-10 09:00:00', status: 'DONE', value: 10.1, description: 'first' },
      { dateCreated: '2024-11-11 09:00:00', status: 'DONE', value: 0.29, description: null },
    ];
    const partial = { ...pspSamples.asaas.paymentRefunded, event: 'PAYMENT_PARTIALLY_REFUNDED' };
    const event = only(source.read({ ...partial, payment: { ...partial.payment, refunds } }, { headers: {} }).events);
    expect(event.name).toBe('transaction_refunded');
    expect(event.transaction.amountInCents).toBe(4223);
    expect(event.transaction.refund).toEqual({ amountInCents: 29, refundedAt: '2024-11-11 09:00:00' });
    expect(only(source.read(partial, { headers: {} }).events).transaction.refund).toEqual({});
  });
  it('reads each chargeback event as transaction_infraction: the payment stays paid, the stage in infraction.status', () => {
    const stages = [
      [pspSamples.asaas.chargebackRequested, 'chargeback_requested'],
      [pspSamples.asaas.chargebackDispute, 'chargeback_dispute'],
      [pspSamples.asaas.awaitingChargebackReversal, 'resolved'],
    ] as const;
    const keys = new Set<string>();
    for (const [body, stage] of stages) {
      const event = only(source.read(body, { headers: {} }).events);
      expect(event).toMatchObject({ name: 'transaction_infraction', provider: 'asaas', deliveryId: body.id });
      expect(event.transaction).toMatchObject({ id: 'pay_6egmyz6lpfxazko3', status: 'paid', amountInCents: 4223 });
      expect(event.transaction.infraction).toEqual({ status: stage, amountInCents: 4223 });
      keys.add(sourceKey(event));
      // Replayed or run by a durable worker from the kept body: the same event again.
      expect(sourceReaders.asaas.readBody(body, 'replay')?.[0]).toMatchObject({
        name: 'transaction_infraction',
        source: 'replay',
        transaction: { infraction: { status: stage } },
      });
    }
    expect(keys.size).toBe(3); // each event its own fact (its own id)
    const reason = { ...pspSamples.asaas.chargebackRequested.payment, chargeback: { status: 'REQUESTED', reason: 'FRAUD' } };
    const withReason = only(source.read({ ...pspSamples.asaas.chargebackRequested, payment: reason }, { headers: {} }).events);
    expect(withReason.transaction.infraction).toEqual({ status: 'chargeback_requested', amountInCents: 4223, reason: 'FRAUD' });
  });
  it('in the book, the chargeback is one dispute of the paid payment: open while requested and disputed, closed once won', async () => {
    const book = memoryPaymentBook();
    const infractions: string[] = [];
    const receiver = createPspReceiver({ psp: 'asaas', token: 'tok', book }).on('transaction_infraction', (event) => {
      infractions.push(event.transaction.infraction?.status ?? '');
    });
    const send = (body: unknown) =>
      receiver.receive({ method: 'POST', headers: { 'asaas-access-token': 'tok' }, body: JSON.stringify(body) });
    expect((await send(pspSamples.asaas.paymentReceived)).status).toBe(200);
    expect((await send(pspSamples.asaas.chargebackRequested)).status).toBe(200);
    expect((await send(pspSamples.asaas.chargebackDispute)).status).toBe(200);
    expect((await book.disputes({ open: true })).map((d) => [d.resourceId, d.status])).toEqual([
      ['pay_6egmyz6lpfxazko3', 'chargeback_dispute'],
    ]);
    expect((await send(pspSamples.asaas.awaitingChargebackReversal)).status).toBe(200);
    expect(await book.disputes({ open: true })).toEqual([]);
    expect((await book.disputes()).map((d) => d.status)).toEqual(['resolved']);
    expect((await book.get('pay_6egmyz6lpfxazko3'))?.status).toBe('paid');
    expect(infractions).toEqual(['chargeback_requested', 'chargeback_dispute', 'resolved']);
    await receiver.close();
  });
  it('with apiKey, a fetched CHARGEBACK_DISPUTE or REFUNDED payment is the same union event as the webhook’s', async () => {
    const server = await startConfirmationServer({ header: 'access_token', value: 'key' });
    try {
      const confirming = asaasSource({ psp: 'asaas', token: 'tok', apiKey: 'key', apiBaseUrl: server.url });
      const hint = confirming.read(pspSamples.asaas.chargebackDispute, { headers: {} }).hints[0]!;
      server.set('/v3/payments/pay_6egmyz6lpfxazko3', { id: 'pay_6egmyz6lpfxazko3', status: 'CHARGEBACK_DISPUTE', value: 42.23 });
      const disputed = await confirming.fetch!(hint, AbortSignal.timeout(2000));
      expect(disputed.status === 'events' && disputed.events[0]).toMatchObject({
        name: 'transaction_infraction',
        transaction: { status: 'paid', infraction: { status: 'chargeback_dispute', amountInCents: 4223 } },
      });
      server.set('/v3/payments/pay_6egmyz6lpfxazko3', { id: 'pay_6egmyz6lpfxazko3', status: 'REFUNDED', value: 42.23, refunds: null });
      const refunded = await confirming.fetch!(hint, AbortSignal.timeout(2000));
      expect(refunded.status === 'events' && refunded.events[0]).toMatchObject({
        name: 'transaction_refunded',
        transaction: { status: 'refunded', refund: { amountInCents: 4223 } },
      });
    } finally {
      await server.close();
    }
  });
  it('with apiKey, a partial refund is confirmed by the refund the still-paid payment lists, not read as its paid fact', async () => {
    const server = await startConfirmationServer({ header: 'access_token', value: 'key' });
    try {
      const confirming = asaasSource({ psp: 'asaas', token: 'tok', apiKey: 'key', apiBaseUrl: server.url });
      const partial = { ...pspSamples.asaas.paymentRefunded, event: 'PAYMENT_PARTIALLY_REFUNDED' };
      const hint = confirming.read(partial, { headers: {} }).hints[0]!;
      const path = '/v3/payments/pay_6egmyz6lpfxazko3';
      const payment = { id: 'pay_6egmyz6lpfxazko3', status: 'RECEIVED', value: 42.23 };
      const first = { dateCreated: '2024-11-10 09:00:00', status: 'DONE', value: 10.1, description: null };
      const pending = { dateCreated: '2024-11-11 09:00:00', status: 'PENDING', value: 5, description: null };
      const fetchOne = async (body: unknown) => {
        const fetched = await confirming.fetch!({ ...hint, body: body as typeof hint.body }, AbortSignal.timeout(2000));
        return fetched.status === 'events' ? fetched.events[0]! : expect.unreachable(fetched.status);
      };

      // Asaas keeps a partially refunded payment RECEIVED and lists the refund: that confirms the webhook's refund.
      server.set(path, { ...payment, refunds: [first, pending] });
      const refunded = await fetchOne(partial);
      expect(refunded).toMatchObject({
        name: 'transaction_refunded',
        deliveryId: partial.id,
        transaction: { status: 'refunded', amountInCents: 4223, refund: { amountInCents: 1010, refundedAt: '2024-11-10 09:00:00' } },
      });
      expect(sourceKey(refunded)).toBe('asaas:transaction_refunded:pay_6egmyz6lpfxazko3:refunded:4223:ra=1010:rt=2024-11-10 09%3A00%3A00');
      // A replay of the journaled record reads it as the same event, under the same key.
      const replayed = sourceReaders.asaas.confirmed!(refunded.payload, partial, refunded.deliveryId, 'replay');
      expect(replayed && sourceKey(replayed)).toBe(sourceKey(refunded));

      // Nothing done listed (only a pending refund): no money returned yet, so the API states the paid fact alone.
      server.set(path, { ...payment, refunds: [pending] });
      const unconfirmed = await fetchOne(partial);
      expect(unconfirmed).toMatchObject({ name: 'transaction_paid', transaction: { status: 'paid' } });
      expect(unconfirmed).not.toHaveProperty('transaction.refund');
      // A late PAYMENT_RECEIVED fetched after the refund is still the paid fact, never a refund.
      server.set(path, { ...payment, refunds: [first] });
      expect(await fetchOne(pspSamples.asaas.paymentReceived)).toMatchObject({ name: 'transaction_paid', transaction: { status: 'paid' } });
    } finally {
      await server.close();
    }
  });
  it('with apiKey, each confirmed fact runs once while Asaas resends: a handler failing once, the paid fact, then a partial refund', async () => {
    const server = await startConfirmationServer({ header: 'access_token', value: 'key' });
    const book = memoryPaymentBook();
    const heard: string[] = [];
    const failing = new Set(['paid', 'refunded']);
    const once = (what: string) => {
      if (failing.delete(what)) throw new Error(`the ${what} handler fails once`);
    };
    const receiver = createPspReceiver({ psp: 'asaas', token: 'tok', apiKey: 'key', apiBaseUrl: server.url, book })
      .on('transaction_paid', (event) => {
        once('paid');
        heard.push(`paid ${event.transaction.amountInCents}`);
      })
      .on('transaction_refunded', (event) => {
        once('refunded');
        heard.push(`refunded ${event.transaction.refund?.amountInCents}`);
      });
    const errors: unknown[] = [];
    receiver.onError((error) => void errors.push(error));
    const send = (body: unknown) =>
      receiver.receive({ method: 'POST', headers: { 'asaas-access-token': 'tok' }, body: JSON.stringify(body) });
    const handled = { status: 200, body: '{"ok":true}' };
    try {
      const path = '/v3/payments/pay_6egmyz6lpfxazko3';
      server.set(path, { id: 'pay_6egmyz6lpfxazko3', status: 'RECEIVED', value: 42.23, refunds: null });
      // The handler's failure is the sender's 500: Asaas resends, and the resend runs it.
      expect(await send(pspSamples.asaas.paymentReceived)).toMatchObject({ status: 500, reason: 'handler_failed' });
      expect(await send(pspSamples.asaas.paymentReceived)).toMatchObject(handled);
      const refunds = [{ dateCreated: '2024-11-10 09:00:00', status: 'DONE', value: 10.1 }];
      server.set(path, { id: 'pay_6egmyz6lpfxazko3', status: 'RECEIVED', value: 42.23, refunds });
      const partial = { ...pspSamples.asaas.paymentRefunded, id: 'evt_partial', event: 'PAYMENT_PARTIALLY_REFUNDED' };
      expect(await send(partial)).toMatchObject({ status: 500, reason: 'handler_failed' });
      expect(await send(partial)).toMatchObject(handled);
      // Resent again, and the late paid event fetched now: the same confirmed facts, no second run.
      expect(await send(partial)).toMatchObject({ status: 200, reason: 'duplicate' });
      expect(await send(pspSamples.asaas.paymentReceived)).toMatchObject({ status: 200, reason: 'duplicate' });
      expect(heard).toEqual(['paid 4223', 'refunded 1010']);
      expect(errors).toHaveLength(2);
      expect((await book.get('pay_6egmyz6lpfxazko3'))?.status).toBe('refunded');
    } finally {
      await receiver.close();
      await server.close();
    }
  });
  it('refuses a missing token', () => {
    expect(() => asaasSource({ psp: 'asaas', token: '' })).toThrow(/`token` is required/);
    // The sandbox's URL with the API key forgotten: nothing would be confirmed, so it is refused, naming it.
    expect(() => asaasSource({ psp: 'asaas', token: 'tok', apiBaseUrl: 'https://api-sandbox.asaas.com' })).toThrow(
      /`apiBaseUrl` needs `apiKey`/,
    );
  });
});

describe('PagBank', () => {
  const source = pagbankSource({ psp: 'pagbank', token: 'account-token' });
  const body = JSON.stringify(pspSamples.pagbank.orderPaid);
  const documented = createHash('sha256').update(`account-token-${body}`).digest('hex');
  it('signs x-authenticity-token as SHA-256 hex of token-body (vector from node:crypto)', async () => {
    expect(await signPagBank({ token: 'account-token', body })).toBe(documented);
  });
  it('checks the hash as the body arrives, chunk by chunk', async () => {
    const head = { headers: { 'x-authenticity-token': documented.toUpperCase() } };
    expect(source.authenticate(head)).toEqual({ ok: true });
    const check = source.bodyCheck!(head);
    const bytes = new TextEncoder().encode(body);
    check.update(bytes.subarray(0, 10));
    check.update(bytes.subarray(10));
    expect(await check.end()).toEqual({ ok: true });
    const wrong = source.bodyCheck!(head);
    wrong.update(new TextEncoder().encode(body + ' '));
    expect(await wrong.end()).toMatchObject({ reason: 'signature_mismatch' });
    expect(source.authenticate({ headers: {} })).toMatchObject({ reason: 'signature_missing' });
  });
  it('refuses a token that is not 64 hex characters, and one digest per delivery (the seeded hash is copied, never reused)', async () => {
    for (const given of [documented.slice(1), `${documented}0`, `${documented.slice(2)}zz`, ' ']) {
      const check = source.bodyCheck!({ headers: { 'x-authenticity-token': given } });
      check.update(new TextEncoder().encode(body));
      expect(await check.end()).toMatchObject({ reason: 'signature_mismatch' });
    }
    const head = { headers: { 'x-authenticity-token': documented } };
    const first = source.bodyCheck!(head);
    const second = source.bodyCheck!(head);
    first.update(new TextEncoder().encode(body));
    second.update(new TextEncoder().encode(body));
    expect(await first.end()).toEqual({ ok: true });
    expect(await second.end()).toEqual({ ok: true });
  });
  it('reads the documented order’s charges[]: PAID is the payment, in cents, with the endToEndId and payer', () => {
    const event = only(source.read(pspSamples.pagbank.orderPaid, { headers: {} }).events);
    expect(event).toMatchObject({ name: 'transaction_paid', provider: 'pagbank', deliveryId: 'ORDE_F87334AC-BB8B-42E2-AA85-8579F70AA328' });
    expect(event.transaction).toMatchObject({
      id: 'CHAR_3B5E7B9A-2E4B-4F1D-8C3E-1D2F3A4B5C6D',
      amountInCents: 500,
      endToEndId: 'E18236120202302081816s0152c8f2f3',
      payer: { document: '***456789**' },
    });
    expect(sourceKey(event)).toMatch(/^pagbank:transaction_paid:CHAR_/);
  });
  it('reads a refund and reports an unreadable charge beside a readable one', () => {
    const read = source.read(
      {
        id: 'O',
        charges: [
          { id: 'C1', status: 'CANCELED', amount: { value: 500, summary: { refunded: 200 } } },
          { id: 'C2', status: '??' },
        ],
      },
      { headers: {} },
    );
    // Amounts exact: the charge's own 500 cents stay its amount; the refund is summary.refunded.
    expect(read.events[0]).toMatchObject({
      name: 'transaction_refunded',
      transaction: { id: 'C1', status: 'refunded', amountInCents: 500, refund: { amountInCents: 200 } },
    });
    expect(read.failures.map((f) => f.path)).toEqual(['charges.1']);
    expect(source.read({ id: 'O' }, { headers: {} }).failures[0]?.path).toBe('charges');
    // A replay reads every charge of the order (one event per charge), never only the first.
    expect(sourceReaders.pagbank.readBody(pspSamples.pagbank.orderPaid, 'replay')).toEqual(
      source.read(pspSamples.pagbank.orderPaid, { headers: {} }).events.map((event) => ({ ...event, source: 'replay' })),
    );
  });
});

describe('Woovi / OpenPix', () => {
  const body = JSON.stringify(pspSamples.woovi.chargeCompleted);
  const documented = createSign('RSA-SHA256').update(body).sign(wooviKeys.privateKey, 'base64');
  it('signs x-webhook-signature as RSA-SHA256 base64 over the raw body (vector from node:crypto)', () => {
    expect(signWoovi({ privateKey: wooviKeys.privateKey, body })).toBe(documented);
  });
  it('tries each public key (rotation), accepting base64 of PEM as Woovi publishes it', async () => {
    const rotated = wooviSource({
      psp: 'woovi',
      publicKeys: [strangerKeys.publicKey, Buffer.from(wooviKeys.publicKey).toString('base64')],
    });
    const check = rotated.bodyCheck!({ headers: { 'x-webhook-signature': documented } });
    const bytes = new TextEncoder().encode(body);
    check.update(bytes.subarray(0, 7));
    check.update(bytes.subarray(7));
    expect(await check.end()).toEqual({ ok: true });
    const alone = wooviSource({ psp: 'woovi', publicKeys: [strangerKeys.publicKey] }).bodyCheck!({
      headers: { 'x-webhook-signature': documented },
    });
    alone.update(new TextEncoder().encode(body));
    expect(await alone.end()).toMatchObject({ reason: 'signature_mismatch' });
    const garbled = rotated.bodyCheck!({ headers: { 'x-webhook-signature': 'not base64!' } });
    expect(await garbled.end()).toMatchObject({ reason: 'signature_mismatch' });
  });
  it('tries the key that verified last first: after a rotation one RSA verify per delivery, not one per key', async () => {
    const rotated = wooviSource({ psp: 'woovi', publicKeys: [strangerKeys.publicKey, wooviKeys.publicKey] });
    // The module object the source verifies with (node:crypto's own exports).
    const verify = vi.spyOn(process.getBuiltinModule('node:crypto'), 'verify');
    try {
      const deliver = async () => {
        const check = rotated.bodyCheck!({ headers: { 'x-webhook-signature': documented } });
        check.update(new TextEncoder().encode(body));
        return check.end();
      };
      expect(await deliver()).toEqual({ ok: true });
      expect(verify).toHaveBeenCalledTimes(2); // the stranger's key first, then Woovi's
      verify.mockClear();
      expect(await deliver()).toEqual({ ok: true });
      expect(verify).toHaveBeenCalledTimes(1);
      const forged = rotated.bodyCheck!({
        headers: { 'x-webhook-signature': signWoovi({ privateKey: strangerKeys.privateKey, body: '{}' }) },
      });
      forged.update(new TextEncoder().encode(body));
      expect(await forged.end()).toMatchObject({ reason: 'signature_mismatch' });
    } finally {
      verify.mockRestore();
    }
  });
  it('parses the keys once at construction and names a bad one', () => {
    expect(() => wooviSource({ psp: 'woovi', publicKeys: [] })).toThrow(/`publicKeys` is required/);
    expect(() => wooviSource({ psp: 'woovi', publicKeys: ['nope'] })).toThrow(/`publicKeys\[0\]`/);
    // Base64 that atob refuses (a length of 4n+1, padding inside) is a config error naming the key, not a DOMException.
    for (const key of ['x', 'abcde', 'ab=c'])
      expect(() => wooviSource({ psp: 'woovi', publicKeys: [wooviKeys.publicKey, key] })).toThrow(
        expect.objectContaining({ name: 'PixhookConfigError', message: expect.stringContaining('`publicKeys[1]`') as string }),
      );
    // Base64 of the PEM, wrapped in lines as it is often pasted, still reads.
    const wrapped = Buffer.from(wooviKeys.publicKey)
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    expect(() => wooviSource({ psp: 'woovi', publicKeys: [wrapped] })).not.toThrow();
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    expect(() => wooviSource({ psp: 'woovi', publicKeys: [ec.publicKey] })).toThrow(/not an RSA public key/);
  });
  const source = wooviSource({ psp: 'woovi', publicKeys: [wooviKeys.publicKey] });
  it('reads the documented CHARGE_COMPLETED: correlationID, value in cents, endToEndId, payer', () => {
    const event = only(source.read(pspSamples.woovi.chargeCompleted, { headers: {} }).events);
    expect(event).toMatchObject({ name: 'transaction_paid', provider: 'woovi' });
    expect(event.transaction).toMatchObject({
      id: '417bae21-3d08-4cdb-9c2d-fee63c89e9e4',
      amountInCents: 1000,
      endToEndId: 'E18236120202103121244s0152c8f2f3',
      payer: { document: '12345678976' },
    });
    expect(sourceKey(event)).toBe(
      'woovi:transaction_paid:417bae21-3d08-4cdb-9c2d-fee63c89e9e4:paid:1000:e2e=E18236120202103121244s0152c8f2f3',
    );
  });
  it('reads TRANSACTION_RECEIVED without a charge, both prefixes, and DISPUTE_* as transaction_infraction', () => {
    expect(only(source.read(pspSamples.woovi.transactionReceived, { headers: {} }).events).transaction.id).toBe(
      'e2e:E18236120202103121244s0999aaaaaa',
    );
    const woovi = only(source.read({ ...pspSamples.woovi.chargeCompleted, event: 'woovi:CHARGE_COMPLETED' }, { headers: {} }).events);
    expect(woovi.name).toBe('transaction_paid');
    const dispute = only(
      source.read(
        { event: 'OPENPIX:DISPUTE_CREATED', charge: pspSamples.woovi.chargeCompleted.charge, dispute: { id: 'd1', value: 1000 } },
        { headers: {} },
      ).events,
    );
    expect(dispute).toMatchObject({
      name: 'transaction_infraction',
      transaction: { status: 'paid', infraction: { id: 'd1', status: 'created', amountInCents: 1000 } },
    });
    // The same dispute under the `woovi:` prefix: the same union event, the same fact (one key).
    const disputeBody = { charge: pspSamples.woovi.chargeCompleted.charge, dispute: { id: 'd1', value: 1000, status: 'OPEN' } };
    const keys = ['OPENPIX:DISPUTE_CREATED', 'woovi:DISPUTE_CREATED', 'woovi:DISPUTE_UPDATED'].map((name) => {
      const event = only(source.read({ event: name, ...disputeBody }, { headers: {} }).events);
      expect(event, name).toMatchObject({
        name: 'transaction_infraction',
        provider: 'woovi',
        transaction: { status: 'paid', infraction: { id: 'd1', status: 'OPEN', amountInCents: 1000 } },
      });
      return sourceKey(event);
    });
    expect(new Set(keys).size).toBe(1);
    expect(source.read({ event: 'woovi:DISPUTE_CREATED', charge: {} }, { headers: {} }).failures).toHaveLength(1);
    expect(source.read({ event: 'OPENPIX:MOVEMENT_CONFIRMED' }, { headers: {} })).toEqual({ events: [], hints: [], failures: [] });
    expect(source.read({ event: 'OPENPIX:CHARGE_COMPLETED', charge: {} }, { headers: {} }).failures).toHaveLength(1);
  });
});

describe('Pagar.me v5', () => {
  it('requires the URL secret and confirms every charge a hook names', () => {
    expect(() => pagarmeSource({ psp: 'pagarme', secretKey: 'sk' } as never)).toThrow(/`urlSecret` is required/);
    // A typo inside urlSecret (`parm`) would leave the default param `secret` in force: every delivery 401.
    expect(() => pagarmeSource({ psp: 'pagarme', secretKey: 'sk', urlSecret: { secret: 's3', parm: 'k' } } as never)).toThrow(
      /`urlSecret\.parm` is not an option of urlSecret \{ secret, param\? \}; did you mean `urlSecret\.param`\?/,
    );
    const source = pagarmeSource({ psp: 'pagarme', secretKey: 'sk', urlSecret: { secret: 's3', param: 'k' } });
    expect(source.authenticate({ headers: {}, url: '/p?k=s3' })).toEqual({ ok: true });
    expect(source.authenticate({ headers: {}, url: '/p?k=s4' })).toMatchObject({ reason: 'signature_mismatch' });
    expect(source.authenticate({ headers: {}, url: '/p' })).toMatchObject({ reason: 'signature_missing' });
    expect(source.read(pspSamples.pagarme.chargePaidHook, { headers: {} }).hints.map((h) => h.id)).toEqual(['ch_d3xG89ktzT1rvWqE']);
    expect(source.read({ type: 'order.paid', data: { charges: [{ id: 'ch_1' }, { id: 'ch_2' }, {}] } }, { headers: {} })).toMatchObject({
      hints: [{ id: 'ch_1' }, { id: 'ch_2' }],
      failures: [{ path: 'data.charges.2.id' }],
    });
    expect(source.read({ type: 'customer.created', data: {} }, { headers: {} })).toEqual({ events: [], hints: [], failures: [] });
  });
  it('reads the documented charge: paid_amount decides a payment (underpaid is held by the book’s amount check)', () => {
    expect(sourceReaders.pagarme.readBody(pspSamples.pagarme.charge, 'replay')?.[0]).toMatchObject({
      name: 'transaction_paid',
      transaction: { amountInCents: 2990, payer: { document: '93095135270' } },
    });
    expect(
      sourceReaders.pagarme.readBody({ ...pspSamples.pagarme.charge, status: 'underpaid', paid_amount: 2000 }, 'replay')?.[0],
    ).toMatchObject({
      transaction: { amountInCents: 2000 },
    });
    expect(
      sourceReaders.pagarme.readBody({ id: 'ch', status: 'canceled', amount: 100, paid_amount: 100, canceled_amount: 100 }, 'replay')?.[0],
    ).toMatchObject({
      name: 'transaction_refunded',
    });
  });

  let server: ConfirmationServer;
  beforeAll(async () => {
    server = await startConfirmationServer({ header: 'authorization', value: `Basic ${Buffer.from('sk:').toString('base64')}` });
  });
  afterAll(() => server.close());

  it('keeps a hook whose charge is not found (404) with the URL secret out of what is kept; a 429 is 503', async () => {
    const quarantine = memoryQuarantine();
    const kept: InvalidDelivery[] = [];
    const all: PixEvent[] = [];
    const receiver = createPspReceiver({
      psp: 'pagarme',
      secretKey: 'sk',
      urlSecret: { secret: 'url-s3cret' },
      apiBaseUrl: server.url,
      quarantine,
    })
      .onInvalid((delivery) => void kept.push(delivery))
      .onAny((event) => void all.push(event));
    const hook = JSON.stringify(pspSamples.pagarme.chargePaidHook);
    const answer = await receiver.receive({ method: 'POST', headers: { 'x-forwarded-for': '1' }, body: hook, url: '/p?secret=url-s3cret' });
    expect(answer.status).toBe(200);
    expect(all).toHaveLength(0);
    expect(kept).toHaveLength(1);
    expect(JSON.stringify(kept)).not.toContain('url-s3cret');
    expect(kept[0]!.message).toMatch(/not found at pagarme/);
    server.fail(1, { status: 429 });
    expect((await receiver.receive({ method: 'POST', headers: {}, body: hook, url: '/p?secret=url-s3cret' })).reason).toBe(
      'gateway_unavailable',
    );
    await receiver.close();
  });

  it('a charge it cannot confirm — the API hangs past the bound, or answers a charge without its amount — is 503 gateway_unavailable, nothing claimed; the retry confirms it once', async () => {
    const paid: PixEvent[] = [];
    // The hang never answers, so a short bound is deterministic here.
    const receiver = createPspReceiver({
      psp: 'pagarme',
      secretKey: 'sk',
      urlSecret: { secret: 'url-s3cret' },
      apiBaseUrl: server.url,
      fetchTimeoutMs: 200,
    }).on('transaction_paid', (event) => void paid.push(event));
    const hook = JSON.stringify(pspSamples.pagarme.chargePaidHook);
    const send = () => receiver.receive({ method: 'POST', headers: {}, body: hook, url: '/p?secret=url-s3cret' });
    const path = `/core/v5/charges/${pspSamples.pagarme.chargePaidHook.data.id}`;
    server.fail(1, 'hang');
    const hung = await send();
    expect([hung.status, hung.reason]).toEqual([503, 'gateway_unavailable']);
    expect(hung.hint).toMatch(/timeout/);
    server.set(path, {
      ...pspSamples.pagarme.charge,
      id: pspSamples.pagarme.chargePaidHook.data.id,
      amount: undefined,
      paid_amount: undefined,
    });
    const unreadable = await send();
    expect([unreadable.status, unreadable.reason]).toEqual([503, 'gateway_unavailable']);
    expect(paid).toHaveLength(0);
    server.set(path, { ...pspSamples.pagarme.charge, id: pspSamples.pagarme.chargePaidHook.data.id });
    expect((await send()).status).toBe(200);
    expect((await send()).reason).toBe('duplicate');
    expect(paid).toHaveLength(1);
    await receiver.close();
  });
});

describe('createPspReceiver', () => {
  it('refuses what does not belong to the PSP, an unknown PSP, durable mode without a queue and bad numbers, by name', () => {
    expect(() => createPspReceiver({ psp: 'nope' } as never)).toThrow(
      /`psp` must be one of "mercado-pago", "asaas", "pagbank", "woovi", "pagarme"/,
    );
    expect(() => createPspReceiver({ psp: 'pagbank', token: 't', accessToken: 'x' } as never)).toThrow(
      /`accessToken` is not an option of psp "pagbank"/,
    );
    expect(() => createPspReceiver({ psp: 'pagbank', token: 't', signature: {} } as never)).toThrow(PixhookConfigError);
    // Durable mode is the processing's: its one requirement, the queue, is named (issue 38: a worker reads PSP jobs).
    expect(() => createPspReceiver({ psp: 'pagbank', token: 't', mode: 'durable' })).toThrow(/`queue` must be given in durable mode/);
    expect(() => createPspReceiver({ psp: 'mercado-pago', secret: 's', accessToken: 'a', fetchTimeoutMs: 30_000 })).toThrow(
      /`fetchTimeoutMs` must be/,
    );
    expect(() => createPspReceiver({ psp: 'pagbank', token: 't', onInvalid: 1 as never })).toThrow(/onInvalid/);
    expect(() => createPspReceiver(null as never)).toThrow(/must be an object/);
  });

  it('refuses fetchTimeoutMs, by name and why, where nothing is fetched: PagBank, Woovi, Asaas without apiKey', () => {
    const ignored = [
      { psp: 'pagbank', token: 't' },
      { psp: 'woovi', publicKeys: [wooviKeys.publicKey] },
      { psp: 'asaas', token: 't' },
    ] as const;
    for (const options of ignored) {
      const make = () => createPspReceiver({ ...options, fetchTimeoutMs: 2_000 });
      expect(make).toThrow(PixhookConfigError);
      expect(make).toThrow(new RegExp(`\`fetchTimeoutMs\` does not apply to psp "${options.psp}".*nothing is fetched`));
    }
    expect(() => createPspReceiver({ psp: 'asaas', token: 't', fetchTimeoutMs: 2_000 })).toThrow(/without `apiKey`/);
    // Where the PSP's API confirms, it is taken.
    const taken = [
      createPspReceiver({ psp: 'asaas', token: 't', apiKey: 'k', fetchTimeoutMs: 2_000 }),
      createPspReceiver({ psp: 'mercado-pago', secret: 's', accessToken: 'a', fetchTimeoutMs: 2_000 }),
      createPspReceiver({ psp: 'pagarme', secretKey: 'sk', urlSecret: { secret: 'url-s3cret' }, fetchTimeoutMs: 2_000 }),
    ];
    return Promise.all(taken.map((r) => r.close()));
  });

  it('answers 405, 413, 400 json_invalid (kept, the token masked) and 200 unknown_event as the gateway receiver does', async () => {
    const kept: InvalidDelivery[] = [];
    const receiver = createPspReceiver({ psp: 'asaas', token: 'tok', maxBodyBytes: 64 }).onInvalid((d) => void kept.push(d));
    const headers = { 'asaas-access-token': 'tok' };
    expect((await receiver.receive({ method: 'GET', headers, body: '' })).status).toBe(405);
    expect((await receiver.receive({ method: 'POST', headers, body: 'x'.repeat(65) })).status).toBe(413);
    const broken = await receiver.receive({ method: 'POST', headers, body: '{' });
    expect(broken.reason).toBe('json_invalid');
    expect(kept[0]!.headers['asaas-access-token']).toBe('***');
    expect((await receiver.receive({ method: 'POST', headers, body: '{"event":"X"}' })).reason).toBe('unknown_event');
    expect((await receiver.receive({ method: 'POST', headers, body: '[]' })).reason).toBe('payload_invalid');
    expect((await receiver.receive({ method: 'POST', headers, body: async () => new TextEncoder().encode('{"event":"Y"}') })).reason).toBe(
      'unknown_event',
    );
    expect(receiver.metrics()).toMatchObject({ invalid: 2 });
  });
});
